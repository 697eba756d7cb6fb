#include "plan/case_values.hpp"

#include "kernels/families.hpp"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdio>

namespace miniapp {

namespace {

using config::fail;
using config::Position;
using config::Value;

// The largest magnitude a value of the precision holds: inputs, alpha, beta and every result the
// kernel forms must stay within it, or the run computes inf/nan (floats) or wraps (int32).
double largest_value(Precision p) {
  switch (p) {
  case Precision::int32:
    return 2147483647.0;
  case Precision::float32:
    return FLT_MAX;
  default:
    return DBL_MAX;
  }
}

std::string short_number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", v);
  return buf;
}

// The largest input magnitude of a rows x cols input (case_support.hpp's input_value): random
// floats in [-1, 1), random integers in [-8, 8], iota up to rows * cols - 1.
double largest_input(const Case& c, const std::vector<std::vector<double>>& values,
                     std::int64_t rows, std::int64_t cols) {
  if (c.init == "explicit") {
    double m = 0;
    for (const auto& row : values)
      for (double v : row)
        m = std::max(m, std::fabs(v));
    return m;
  }
  if (c.init == "iota")
    return double(rows) * double(cols) - 1;
  if (c.init == "ones")
    return 1;
  return c.precision == Precision::int32 ? 8 : 1;
}

} // namespace

// What the kernel forms from its inputs (axpby: alpha * A + beta * B; matmul: sums of k products;
// tile_average: sums of S x S values) must fit the case's precision; checked before the run.
void check_value_range(const Case& c, const Position& size_pos,
                       const std::function<Position(const std::string&)>& pos_of) {
  const double top = largest_value(c.precision);
  const std::string prec = to_string(c.precision);
  const auto too_large = [&](const Position& at, const std::string& what, double v) {
    fail(at, what + " reaches " + short_number(v) + ", more than " + prec + " holds (" +
                 short_number(top) + "); use smaller values or a wider precision");
  };
  const Family& f = family(c.family);
  const bool with_k = c.uses(Param::k);
  const double a = largest_input(c, c.a_values, c.m, with_k ? c.k : c.n);
  const double b = f.inputs > 1 ? largest_input(c, c.b_values, with_k ? c.k : c.m, c.n) : 0;
  const Position input_pos = c.init == "iota" ? pos_of("init") : size_pos;
  if (!f.inputs_are_values)
    return;
  if (std::max(a, b) > top)
    too_large(input_pos, "an input (init " + c.init + ")", std::max(a, b));
  for (const ResultBound& r : f.result_bounds(c, a, b))
    if (r.value > top)
      too_large(r.key.empty() ? size_pos : pos_of(r.key), r.what, r.value);
}

// An explicit matrix checked against the case's shape and precision.
std::vector<std::vector<double>> matrix_values(const config::Matrix& m, const std::string& what,
                                               std::int64_t rows, std::int64_t cols,
                                               Precision precision) {
  const bool integral = precision == Precision::int32;
  if (!m.is_list || std::int64_t(m.rows.size()) != rows)
    fail(m.pos, what + " must be a list of " + std::to_string(rows) + " rows");
  std::vector<std::vector<double>> out;
  for (size_t i = 0; i < m.rows.size(); ++i) {
    const config::MatrixRow& r = m.rows[i];
    if (!r.is_list || std::int64_t(r.values.size()) != cols)
      fail(r.pos,
           what + " row " + std::to_string(i) + " must hold " + std::to_string(cols) + " values");
    std::vector<double> row;
    for (const Value& v : r.values) {
      const double x = v.as_double();
      if (integral && x != std::floor(x))
        fail(v.pos, what + ": int32 cases need whole numbers, got " + v.text);
      if (std::fabs(x) > largest_value(precision))
        fail(v.pos, what + ": " + v.text + " does not fit " + to_string(precision) + " (largest " +
                        short_number(largest_value(precision)) + ")");
      row.push_back(x);
    }
    out.push_back(row);
  }
  return out;
}

} // namespace miniapp
