#pragma once
// Shared by the kernel cases: input generation, poison values, element-wise validation and
// printing of small matrices. Host-side only.
#include "kernels/kernel_case.hpp"
#include "kernels/matrix.hpp"

#include <cmath>
#include <cstdint>
#include <iomanip>
#include <limits>
#include <ostream>
#include <sstream>
#include <type_traits>
#include <vector>

namespace miniapp::kernels {

// A value no kernel of this project produces from the generated inputs.
template <class T>
T poison_value() {
  if constexpr (std::is_floating_point_v<T>)
    return std::numeric_limits<T>::quiet_NaN();
  else
    return std::numeric_limits<T>::min();
}

// Unit roundoff u of T (0 for integers, whose results must be exact).
template <class T>
double unit_roundoff() {
  if constexpr (std::is_floating_point_v<T>)
    return std::numeric_limits<T>::epsilon() / 2;
  else
    return 0.0;
}

// Inputs are generated on the host from (seed, which input, global row, global column) alone, so
// every backend, every rank and every block layout sees the same numbers: random floats uniform in
// [-1, 1), random integers in [-8, 8]; iota = linear index; ones; or the config's explicit values.
inline std::uint64_t mix64(std::uint64_t x) { // splitmix64 finaliser
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

template <class T>
T input_value(const Case& c, int which, std::int64_t gi, std::int64_t gj, std::int64_t global_cols,
              const std::vector<std::vector<double>>& explicit_values) {
  if (c.init == "explicit")
    return T(explicit_values[gi][gj]);
  if (c.init == "iota")
    return T(gi * global_cols + gj);
  if (c.init == "ones")
    return T(1);
  const std::uint64_t r =
      mix64(mix64(c.seed * 4 + std::uint64_t(which)) ^ std::uint64_t(gi * global_cols + gj));
  if constexpr (std::is_floating_point_v<T>)
    return T(double(r >> 11) * 0x1.0p-52 - 1.0); // 53 random bits -> [-1, 1)
  else
    return T(int(r % 17) - 8);
}

// Fills a block whose (0, 0) element is global element (row0, col0) of a matrix global_cols wide.
template <class T>
void fill_input(const HostMatrix<T>& h, const Case& c, int which,
                const std::vector<std::vector<double>>& explicit_values, std::int64_t row0 = 0,
                std::int64_t col0 = 0, std::int64_t global_cols = -1) {
  const std::int64_t rows = h.extent(0), cols = h.extent(1);
  if (global_cols < 0)
    global_cols = cols;
  for (std::int64_t i = 0; i < rows; ++i)
    for (std::int64_t j = 0; j < cols; ++j)
      h(i, j) = input_value<T>(c, which, row0 + i, col0 + j, global_cols, explicit_values);
}

// Element (i, j) passes when |out - ref| <= tol * scale(i, j) (+ the smallest normal number, so a
// zero scale still accepts an exact zero). NaN, and the poison value, never pass. out is the block
// whose (0, 0) is global element (row0, col0); messages give global indices.
template <class T>
Validation compare(const HostMatrix<T>& out, const std::vector<double>& ref,
                   const std::vector<double>& scale, double tol, std::int64_t row0 = 0,
                   std::int64_t col0 = 0) {
  Validation v;
  v.checked = true;
  v.tolerance = tol;
  const std::int64_t rows = out.extent(0), cols = out.extent(1);
  for (std::int64_t i = 0; i < rows; ++i)
    for (std::int64_t j = 0; j < cols; ++j) {
      const std::size_t idx = std::size_t(i * cols + j);
      const double got = double(out(i, j));
      const double err = std::fabs(got - ref[idx]);
      const double bound = tol * scale[idx] + std::numeric_limits<double>::min();
      const bool poisoned = !std::is_floating_point_v<T> && out(i, j) == poison_value<T>();
      v.checksum += got;
      v.checksum_ref += ref[idx];
      v.checksum_bound += tol * scale[idx];
      if (!(err <= bound) || poisoned) {
        if (v.bad_elements++ == 0) {
          std::ostringstream os;
          os << "(" << row0 + i << "," << col0 + j << "): got " << got << ", expected " << ref[idx];
          v.first_bad = os.str();
        }
      }
      if (scale[idx] > 0 && std::isfinite(err))
        v.max_error = std::max(v.max_error, err / scale[idx]);
      if (!std::isfinite(got))
        v.max_error = std::numeric_limits<double>::infinity();
    }
  v.passed = v.bad_elements == 0;
  return v;
}

template <class T>
void print_matrix(std::ostream& os, const std::string& title, const HostMatrix<T>& h) {
  os << title << " (" << h.extent(0) << "x" << h.extent(1) << ")";
  if (h.extent(0) > 16 || h.extent(1) > 16) {
    os << ": larger than 16x16, not printed\n";
    return;
  }
  os << ":\n";
  for (std::size_t i = 0; i < h.extent(0); ++i) {
    for (std::size_t j = 0; j < h.extent(1); ++j)
      os << std::setw(9) << h(i, j) << " ";
    os << "\n";
  }
}

template <class T>
std::vector<double> to_double(const HostMatrix<T>& h) {
  std::vector<double> out(h.extent(0) * h.extent(1));
  for (std::size_t i = 0; i < h.extent(0); ++i)
    for (std::size_t j = 0; j < h.extent(1); ++j)
      out[i * h.extent(1) + j] = double(h(i, j));
  return out;
}

} // namespace miniapp::kernels
