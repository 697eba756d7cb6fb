#include "compare/welch.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace miniapp {
namespace compare {

namespace {

double mean_of(const std::vector<double>& v) {
  return std::accumulate(v.begin(), v.end(), 0.0) / double(v.size());
}
double variance_of(const std::vector<double>& v, double mean) {
  double s = 0;
  for (const double x : v)
    s += (x - mean) * (x - mean);
  return s / double(v.size() - 1);
}

// The continued fraction of the incomplete beta function (Numerical Recipes, betacf).
double beta_fraction(double a, double b, double x) {
  constexpr int kMaxIterations = 1000;
  constexpr double kEpsilon = 1e-15, kTiny = 1e-300;
  const auto floor_tiny = [](double v) { return std::fabs(v) < kTiny ? kTiny : v; };
  const double qab = a + b, qap = a + 1, qam = a - 1;
  double c = 1, d = 1 / floor_tiny(1 - qab * x / qap), h = d;
  for (int m = 1; m <= kMaxIterations; ++m) {
    const double m2 = 2.0 * m;
    double aa = m * (b - m) * x / ((qam + m2) * (a + m2));
    d = 1 / floor_tiny(1 + aa * d);
    c = floor_tiny(1 + aa / c);
    h *= d * c;
    aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2));
    d = 1 / floor_tiny(1 + aa * d);
    c = floor_tiny(1 + aa / c);
    const double step = d * c;
    h *= step;
    if (std::fabs(step - 1) < kEpsilon)
      break;
  }
  return h;
}

// The regularized incomplete beta function I_x(a, b).
double incomplete_beta(double a, double b, double x) {
  if (x <= 0)
    return 0;
  if (x >= 1)
    return 1;
  const double front = std::exp(std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b) +
                                a * std::log(x) + b * std::log1p(-x));
  if (x < (a + 1) / (a + b + 2))
    return front * beta_fraction(a, b, x) / a;
  return 1 - front * beta_fraction(b, a, 1 - x) / b;
}

} // namespace

double coefficient_of_variation(const std::vector<double>& v) {
  if (v.size() < 2)
    return -1;
  const double mean = mean_of(v);
  return mean > 0 ? std::sqrt(variance_of(v, mean)) / mean : -1;
}

double student_t_p(double t, double df) {
  if (!(df > 0) || std::isnan(t))
    return -1;
  return std::min(1.0, incomplete_beta(df / 2, 0.5, df / (df + t * t)));
}

double welch_log_p(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() < 2 || b.size() < 2)
    return -1;
  std::vector<double> la, lb;
  for (const double x : a)
    la.push_back(std::log(x));
  for (const double x : b)
    lb.push_back(std::log(x));
  for (const auto* v : {&la, &lb})
    for (const double x : *v)
      if (!std::isfinite(x))
        return -1; // a time <= 0
  const double ma = mean_of(la), mb = mean_of(lb);
  const double sa = variance_of(la, ma) / double(la.size()),
               sb = variance_of(lb, mb) / double(lb.size());
  const double se2 = sa + sb;
  if (sa <= 0 || sb <= 0) // a side's rounds all alike: its noise is unknown (run_pooling.hpp)
    return -1;
  // Welch-Satterthwaite, within its bounds (min(n) - 1 to n1 + n2 - 2) also where a tiny
  // variance's square underflows (0 / 0: the lower bound, the cautious one).
  const double lowest = double(std::min(la.size(), lb.size()) - 1),
               highest = double(la.size() + lb.size() - 2);
  const double welch =
      se2 * se2 / (sa * sa / double(la.size() - 1) + sb * sb / double(lb.size() - 1));
  const double df = welch >= lowest ? std::min(welch, highest) : lowest;
  return student_t_p((ma - mb) / std::sqrt(se2), df);
}

} // namespace compare
} // namespace miniapp
