#include "run/stable_estimate.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>

namespace miniapp {

StableEstimate estimate_until_stable(const std::function<double()>& estimate, double tolerance,
                                     int max_tries, double max_seconds) {
  using Clock = std::chrono::steady_clock;
  const Clock::time_point start = Clock::now();
  StableEstimate e;
  double previous = 0;
  while (e.tries < std::max(2, max_tries)) {
    const double x = estimate();
    ++e.tries;
    if (!(x > 0)) {
      e = StableEstimate{x, x, x, e.tries, false};
      return e;
    }
    e.low = e.tries == 1 ? x : std::min(e.low, x);
    e.high = std::max(e.high, x);
    if (e.tries > 1 && std::fabs(x - previous) <= tolerance * std::max(x, previous)) {
      e.value = std::max(x, previous);
      e.stable = true;
      return e;
    }
    previous = x;
    if (e.tries >= 2 && std::chrono::duration<double>(Clock::now() - start).count() > max_seconds)
      break;
  }
  e.value = e.high;
  return e;
}

} // namespace miniapp
