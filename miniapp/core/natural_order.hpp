#pragma once
// The order of case ids and problems wherever they are listed (the PP table and its cascades,
// `history`): numbers read as numbers.
#include <cstddef>
#include <string>

namespace miniapp {

// Text order with numbers read as numbers, so sizes sort as 128x128 < 1024x1024 < 2048x2048 (plain
// text order put 1024 before 128): runs of digits compare by value (leading zeros ignored, a
// shorter run first), everything else by character.
inline bool natural_less(const std::string& a, const std::string& b) {
  const auto digit = [](char c) { return c >= '0' && c <= '9'; };
  std::size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    if (digit(a[i]) && digit(b[j])) {
      std::size_t ie = i, je = j;
      while (ie < a.size() && digit(a[ie]))
        ++ie;
      while (je < b.size() && digit(b[je]))
        ++je;
      while (i + 1 < ie && a[i] == '0') // the value's digits, without leading zeros
        ++i;
      while (j + 1 < je && b[j] == '0')
        ++j;
      if (ie - i != je - j)
        return ie - i < je - j;
      const int c = a.compare(i, ie - i, b, j, je - j);
      if (c != 0)
        return c < 0;
      i = ie;
      j = je;
    } else {
      if (a[i] != b[j])
        return a[i] < b[j];
      ++i;
      ++j;
    }
  }
  return a.size() - i < b.size() - j;
}

} // namespace miniapp
