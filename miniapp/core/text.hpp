#pragma once
// Text for tables and messages: numbers, and lists of words, shared by every layer.
#include <cstdio>
#include <string>
#include <vector>

namespace miniapp {

// One double through a printf format ("%.2f", "%.3g", ...).
inline std::string fmt(const char* format, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

// The items with sep between them: join({"serial", "openmp"}, ", ") is "serial, openmp".
inline std::string join(const std::vector<std::string>& items, const std::string& sep) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i)
    out += (i ? sep : "") + items[i];
  return out;
}

} // namespace miniapp
