#pragma once
// Text of numbers for tables and messages, shared by the console, compare, history and the report.
#include <cstdio>
#include <string>

namespace miniapp {

// One double through a printf format ("%.2f", "%.3g", ...).
inline std::string fmt(const char* format, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

} // namespace miniapp
