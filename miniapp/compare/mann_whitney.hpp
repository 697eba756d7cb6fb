#pragma once
// The significance test `miniapp compare` applies to two runs' repetition times.
#include <cstddef>
#include <vector>

namespace miniapp {
namespace compare {

// Significance level of the Mann-Whitney U test (Google Benchmark's compare.py uses 0.05 too).
constexpr double kAlpha = 0.05;

// Two-sided Mann-Whitney U test of two samples (as scipy.stats.mannwhitneyu, asymptotic method:
// normal approximation with tie and continuity correction). The p-value, or -1 when either sample
// has fewer than 2 values.
double mann_whitney_p(const std::vector<double>& a, const std::vector<double>& b);

// The smallest p-value samples of these sizes can reach (no overlap, no ties): below kAlpha only
// with enough repetitions on both sides.
double smallest_p(std::size_t n1, std::size_t n2);

} // namespace compare
} // namespace miniapp
