#pragma once
// A compare::Run written back as a results.json document: the metadata as recorded (or, for a run
// read from a results.csv alone, what the Run knows) and its rows under the names results.json
// uses. `miniapp report` hands these to the plot script, so the plots show the very runs the
// table shows, wherever they were read from (a run directory or the history database).
#include "results/run.hpp"

#include <nlohmann/json.hpp>

namespace miniapp {
namespace compare {

nlohmann::json to_results_json(const Run& run);

} // namespace compare
} // namespace miniapp
