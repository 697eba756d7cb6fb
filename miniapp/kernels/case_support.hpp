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
#include <random>
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

// Inputs are generated on the host, so every backend and rank sees the same numbers for a seed:
// random floats uniform in [-1, 1), random integers in [-8, 8]; iota = linear index; ones; or the
// explicit values of the config.
template <class T>
void fill_input(const HostMatrix<T>& h, const Case& c, int which,
                const std::vector<std::vector<double>>& explicit_values) {
  const std::int64_t rows = h.extent(0), cols = h.extent(1);
  if (c.init == "explicit") {
    for (std::int64_t i = 0; i < rows; ++i)
      for (std::int64_t j = 0; j < cols; ++j) h(i, j) = T(explicit_values[i][j]);
    return;
  }
  std::mt19937_64 rng(c.seed * 0x9E3779B97F4A7C15ull + std::uint64_t(which) + 1);
  std::uniform_real_distribution<double> real(-1.0, 1.0);
  std::uniform_int_distribution<int> integer(-8, 8);
  for (std::int64_t i = 0; i < rows; ++i)
    for (std::int64_t j = 0; j < cols; ++j) {
      if (c.init == "iota")
        h(i, j) = T(i * cols + j);
      else if (c.init == "ones")
        h(i, j) = T(1);
      else if constexpr (std::is_floating_point_v<T>)
        h(i, j) = T(real(rng));
      else
        h(i, j) = T(integer(rng));
    }
}

// Element (i, j) passes when |out - ref| <= tol * scale(i, j) (+ the smallest normal number, so a
// zero scale still accepts an exact zero). NaN, and the poison value, never pass.
template <class T>
Validation compare(const HostMatrix<T>& out, const std::vector<double>& ref,
                   const std::vector<double>& scale, double tol) {
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
      if (!(err <= bound) || poisoned) {
        if (v.bad_elements++ == 0) {
          std::ostringstream os;
          os << "(" << i << "," << j << "): got " << got << ", expected " << ref[idx];
          v.first_bad = os.str();
        }
      }
      if (scale[idx] > 0 && std::isfinite(err)) v.max_error = std::max(v.max_error, err / scale[idx]);
      if (!std::isfinite(got)) v.max_error = std::numeric_limits<double>::infinity();
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
    for (std::size_t j = 0; j < h.extent(1); ++j) os << std::setw(9) << h(i, j) << " ";
    os << "\n";
  }
}

template <class T>
std::vector<double> to_double(const HostMatrix<T>& h) {
  std::vector<double> out(h.extent(0) * h.extent(1));
  for (std::size_t i = 0; i < h.extent(0); ++i)
    for (std::size_t j = 0; j < h.extent(1); ++j) out[i * h.extent(1) + j] = double(h(i, j));
  return out;
}

} // namespace miniapp::kernels
