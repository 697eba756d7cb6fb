#pragma once
// Size arithmetic that cannot wrap: byte counts, element counts and case counts are products of
// numbers a config chooses, and a wrapped product would pass every later check (a 2^32-element
// case "needing" 24 bytes). Results saturate at kTooLarge, which every caller treats as "too
// large" and turns into a message.
#include <cstdint>

namespace miniapp {

constexpr std::uint64_t kTooLarge = UINT64_MAX;

inline std::uint64_t sat_mul(std::uint64_t a, std::uint64_t b) {
  std::uint64_t r;
  return __builtin_mul_overflow(a, b, &r) ? kTooLarge : r;
}

inline std::uint64_t sat_add(std::uint64_t a, std::uint64_t b) {
  std::uint64_t r;
  return __builtin_add_overflow(a, b, &r) ? kTooLarge : r;
}

// A size from a signed field; negative sizes (never valid) count as nothing.
inline std::uint64_t size_of(std::int64_t v) {
  return v > 0 ? std::uint64_t(v) : 0;
}

} // namespace miniapp
