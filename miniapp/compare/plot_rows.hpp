#pragma once
// The plot script's one input: the runs joined as `miniapp compare` joins them (unpooled: every
// run as given), written as one long table, a row per run and case. Each row holds every results
// column, typed (Row::fields), and what the plots need computed here once: the rate in its
// family's unit for the measure chosen, its spread, the speedup over the baseline run's same
// case, the ratio to the same-run ceiling, size and tile labels, the arithmetic intensity and the
// roof the row's ceiling draws. The script only selects and draws (docs/compare.md, "The plot
// table").
#include "compare/compare.hpp"

#include <nlohmann/json.hpp>

#include <vector>

namespace miniapp {
namespace compare {

// {"measure", "baseline", "families", "runs": [{"label", "backend"}], "rows": [...]}.
// Throws std::runtime_error where compare_runs does (no runs, no such baseline).
nlohmann::json plot_table(const std::vector<Run>& runs, std::size_t baseline, bool with_transfers);

} // namespace compare
} // namespace miniapp
