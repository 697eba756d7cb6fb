#include "compare/mann_whitney.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <utility>

namespace miniapp {
namespace compare {

double mann_whitney_p(const std::vector<double>& a, const std::vector<double>& b) {
  const std::size_t n1 = a.size(), n2 = b.size(), n = n1 + n2;
  if (n1 < 2 || n2 < 2)
    return -1;
  // Ranks of the pooled sample, ties sharing their average rank.
  std::vector<std::pair<double, bool>> pooled; // value, from a
  for (double x : a)
    pooled.emplace_back(x, true);
  for (double x : b)
    pooled.emplace_back(x, false);
  std::sort(pooled.begin(), pooled.end());
  double rank_sum_a = 0, tie_term = 0;
  for (std::size_t i = 0; i < n;) {
    std::size_t j = i;
    while (j < n && pooled[j].first == pooled[i].first)
      ++j;
    const double t = double(j - i), avg_rank = 0.5 * double(i + 1 + j);
    tie_term += t * t * t - t;
    for (std::size_t k = i; k < j; ++k)
      if (pooled[k].second)
        rank_sum_a += avg_rank;
    i = j;
  }
  const double u1 = rank_sum_a - double(n1) * double(n1 + 1) / 2;
  const double u2 = double(n1) * double(n2) - u1;
  const double mu = double(n1) * double(n2) / 2;
  const double sigma = std::sqrt(double(n1) * double(n2) / 12 *
                                 (double(n + 1) - tie_term / (double(n) * double(n - 1))));
  if (sigma <= 0)
    return 1;                                             // every value equal
  const double z = (std::max(u1, u2) - mu - 0.5) / sigma; // 0.5: continuity correction
  return std::min(1.0, std::erfc(z / std::sqrt(2.0)));    // two-sided: 2 * (1 - Phi(z))
}

double smallest_p(std::size_t n1, std::size_t n2) {
  std::vector<double> a(n1), b(n2);
  std::iota(a.begin(), a.end(), 0.0);
  std::iota(b.begin(), b.end(), double(n1));
  return mann_whitney_p(a, b);
}

} // namespace compare
} // namespace miniapp
