#pragma once
// `miniapp run --rounds N`: the whole case list runs N times in turn (cases 1..K, then 1..K
// again), so a slow spell of the host falls on every case instead of on the few that ran during
// it, and each case is measured N times, minutes apart. A case's row pools its rounds: its
// statistics and rates are over every round's repetitions, and round_medians keeps each round's
// median, the unit `miniapp compare` tests across runs (compare/pooling.hpp).
#include "core/result.hpp"

namespace miniapp {

// GFLOP/s and GB/s from the median compute time, GFLOP/s with transfers from the median total.
void set_rates(CaseResult& r);

// After a case's first round: its round medians are its own.
void start_rounds(CaseResult& r);

// Adds a later round of the same case to its row. A round that did not end ok (an error, a
// failed validation) gives the row its status and message; its times are not pooled.
void add_round(CaseResult& row, const CaseResult& round);

} // namespace miniapp
