#pragma once
// `miniapp run --resume DIR`: an earlier run's results directory read back, so that only the cases
// it lacks run again. A case is kept when DIR holds its row with status ok or unsupported (which a
// rerun would repeat); a case that is missing (never reached, or interrupted: an interrupted case
// is no row), or whose row failed (invalid, error), runs again and its new row replaces the old.
// The experiment must be the same: the config hash (plan/config_hash.hpp), the rank count and the
// rounds of `--rounds`, or the rows would not belong to one table.
#include "plan/plan.hpp"

#include <nlohmann/json.hpp>

#include <cstddef>
#include <string>
#include <vector>

namespace miniapp {

struct ResumeState {
  bool active = false;              // --resume was given
  std::string dir;                  // the results directory (no trailing '/')
  std::vector<nlohmann::json> kept; // DIR's rows kept, as written there (results.json)
  std::vector<std::size_t> to_run;  // plan positions of the cases to run, in plan order
  std::string earlier_status;       // DIR's results.json "status" (complete, interrupted, ...)
  nlohmann::json earlier_runs;      // what results.json records of the runs before (metadata)
};

// Reads DIR/results.json against plan (as this run expanded it), `ranks` and `rounds`. Throws
// config::ConfigError, one sentence naming the path (a JSON error with its line and column) or
// what differs.
ResumeState read_resume_state(const std::string& dir, const Plan& plan, int ranks, int rounds);

// The cases of `to_run` only, each keeping its position in the full plan (Case::index).
Plan plan_to_resume(const Plan& plan, const ResumeState& state);

// Joins the plan positions ("0,3,7") and reads them back (every rank learns rank 0's decision).
std::string positions_text(const std::vector<std::size_t>& positions);
std::vector<std::size_t> positions_from_text(const std::string& text);

} // namespace miniapp
