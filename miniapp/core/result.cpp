#include "core/result.hpp"

#include "core/text.hpp"

#include <algorithm>
#include <numeric>

namespace miniapp {

const char* to_string(Status s) {
  switch (s) {
  case Status::ok:
    return "ok";
  case Status::invalid:
    return "invalid";
  case Status::unsupported:
    return "unsupported";
  case Status::error:
    return "error";
  default:
    return "interrupted";
  }
}

std::string uncertain_text(double low, double high) {
  return "uncertain " + fmt("%.1f", low) + "-" + fmt("%.1f", high);
}

Stats summarize(std::vector<double> v) {
  Stats s;
  if (v.empty())
    return s;
  s.samples = v;
  std::sort(v.begin(), v.end());
  s.min = v.front();
  s.max = v.back();
  s.median = v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
  s.mean = std::accumulate(v.begin(), v.end(), 0.0) / double(v.size());
  return s;
}

} // namespace miniapp
