#include "core/case.hpp"

namespace miniapp {

const char* to_string(Precision p) {
  switch (p) {
  case Precision::int32:
    return "int32";
  case Precision::float32:
    return "float32";
  default:
    return "float64";
  }
}

bool parse_precision(const std::string& s, Precision& out) {
  if (s == "int32")
    out = Precision::int32;
  else if (s == "float32")
    out = Precision::float32;
  else if (s == "float64")
    out = Precision::float64;
  else
    return false;
  return true;
}

} // namespace miniapp
