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

// A double written so that it reads back as the same double (%.17g).
inline std::string exact_text(double v) {
  return fmt("%.17g", v);
}

// The items with sep between them: join({"serial", "openmp"}, ", ") is "serial, openmp".
inline std::string join(const std::vector<std::string>& items, const std::string& sep) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i)
    out += (i ? sep : "") + items[i];
  return out;
}

// The items as a sentence lists them: join_words({"a", "b", "c"}, "or") is "a, b or c".
inline std::string join_words(const std::vector<std::string>& items, const std::string& last) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i)
    out += (i == 0 ? "" : i + 1 == items.size() ? " " + last + " " : ", ") + items[i];
  return out;
}

} // namespace miniapp
