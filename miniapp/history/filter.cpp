#include "history/filter.hpp"

#include "results/references.hpp"

#include <algorithm>
#include <cctype>
#include <stdexcept>

namespace miniapp::history {

namespace {
bool digits(const std::string& s, std::size_t from, std::size_t count) {
  if (s.size() < from + count)
    return false;
  return std::all_of(s.begin() + long(from), s.begin() + long(from + count),
                     [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; });
}
} // namespace

bool run_matches(const Filter& f, const std::string& run_id, const std::string& label,
                 const std::string& host, const std::string& backend, const std::string& device,
                 const std::string& experiment, const std::string& start_time) {
  const auto ok = [](const std::string& pattern, const std::string& value) {
    return pattern.empty() || references::glob_match(pattern, value);
  };
  return ok(f.run_id, run_id) && ok(f.label, label) && ok(f.host, host) && ok(f.backend, backend) &&
         ok(f.device, device) && ok(f.experiment, experiment) &&
         (f.since.empty() || start_time >= f.since);
}

bool valid_since(const std::string& s) {
  if (!(digits(s, 0, 4) && s.size() >= 10 && s[4] == '-' && digits(s, 5, 2) && s[7] == '-' &&
        digits(s, 8, 2)))
    return false;
  if (s.size() == 10)
    return true;
  std::string rest = s.substr(10);
  if (!rest.empty() && rest.back() == 'Z')
    rest.pop_back();
  return (rest.size() == 6 || rest.size() == 9) && rest[0] == 'T' && digits(rest, 1, 2) &&
         rest[3] == ':' && digits(rest, 4, 2) &&
         (rest.size() == 6 || (rest[6] == ':' && digits(rest, 7, 2)));
}

void add_condition(Filter& f, const std::string& key_value) {
  const auto eq = key_value.find('=');
  const std::string key = key_value.substr(0, eq);
  const std::string value = eq == std::string::npos ? "" : key_value.substr(eq + 1);
  const std::vector<std::string> keys = {"run",    "label",      "host",  "backend",
                                         "device", "experiment", "since", "case"};
  if (eq == std::string::npos || std::find(keys.begin(), keys.end(), key) == keys.end()) {
    std::string list;
    for (const auto& k : keys)
      list += (list.empty() ? "" : ", ") + k;
    throw std::invalid_argument("'" + key_value + "' is not KEY=VALUE with KEY one of " + list);
  }
  if (value.empty())
    throw std::invalid_argument("'" + key_value + "': the value is empty");
  if (key == "since" && !valid_since(value))
    throw std::invalid_argument("since=" + value +
                                ": expected a date YYYY-MM-DD or time YYYY-MM-DDTHH:MM[:SS]Z");
  std::string& slot = key == "run"       ? f.run_id
                      : key == "label"   ? f.label
                      : key == "host"    ? f.host
                      : key == "backend" ? f.backend
                      : key == "device"  ? f.device
                      : key == "since"   ? f.since
                      : key == "case"    ? f.case_pattern
                                         : f.experiment;
  slot = value;
}

} // namespace miniapp::history
