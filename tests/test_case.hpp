#pragma once
// A Case with its family, variant and sizes set, for the tests that write or print rows.
#include "core/case.hpp"

#include <cstdint>
#include <string>

namespace miniapp {

inline Case case_of(const std::string& family, const std::string& variant, std::int64_t m,
                    std::int64_t n, std::int64_t k = 0) {
  Case c;
  c.family = family;
  c.variant = variant;
  c.m = m;
  c.n = n;
  c.k = k;
  return c;
}

} // namespace miniapp
