#pragma once
// An estimate repeated until it settles: the vendor GEMM ceiling at small sizes varied by a factor
// of four between two runs of one config on one machine (29 and 117 GFLOP/s at 256^3, issue 22).
#include <functional>

namespace miniapp {

struct StableEstimate {
  double value = 0;         // the larger of the two that agreed; the largest when none did
  double low = 0, high = 0; // the least and the largest estimate taken
  int tries = 0;
  bool stable = false; // two consecutive estimates agreed within the tolerance
};

// Calls `estimate` until two consecutive results agree within `tolerance` (relative to the
// larger), at most `max_tries` times and, once two are taken, no longer than `max_seconds`.
// A result <= 0 (nothing measurable) ends the loop at once with that value.
StableEstimate estimate_until_stable(const std::function<double()>& estimate,
                                     double tolerance = 0.05, int max_tries = 5,
                                     double max_seconds = 1.0);

} // namespace miniapp
