#pragma once
// The statistics compare's test across runs rests on (compare/pooling.hpp): the spread of a
// sample and Welch's t test on log times, with Student's t from the regularized incomplete beta
// function.
#include <vector>

namespace miniapp {
namespace compare {

// Sample standard deviation over mean; -1 with fewer than 2 values or a mean <= 0.
double coefficient_of_variation(const std::vector<double>& v);

// Two-sided p of Student's t with df degrees of freedom (df > 0, not necessarily whole).
double student_t_p(double t, double df);
// Welch's t test on the logarithms of two samples of times (a ratio of times is what differs,
// and run-to-run noise is multiplicative): the two-sided p, or -1 when either has fewer than 2
// values or a value <= 0, or when a side's values are all equal (its noise is then unknown, not
// zero: rounds timed alike, copies of one round, say nothing about how far another run could
// differ, so no p, least of all p = 0).
double welch_log_p(const std::vector<double>& a, const std::vector<double>& b);

} // namespace compare
} // namespace miniapp
