#pragma once
// Which runs and cases a history query takes (`miniapp history`, `compare --db`, `report --db`):
// KEY=VALUE conditions, globs over the run's identity and the case id.
#include <string>

namespace miniapp::history {

// Which runs (and cases) to take. Globs as fnmatch(3) ('*' matches '/'); empty = any.
struct Filter {
  std::string run_id, label, host, backend, device, experiment;
  std::string since;        // ISO 8601 date or time: runs started at or after it
  std::string case_pattern; // glob over case ids (references::case_id)
};
// One "key=value" condition (run, label, host, backend, device, experiment, since, case) into f.
// Throws std::invalid_argument naming the keys, or saying what is wrong with the value.
void add_condition(Filter& f, const std::string& key_value);
// YYYY-MM-DD, optionally THH:MM[:SS][Z].
bool valid_since(const std::string& s);

// Whether a run (by its identity columns) passes the filter's run conditions (not `case`).
bool run_matches(const Filter& f, const std::string& run_id, const std::string& label,
                 const std::string& host, const std::string& backend, const std::string& device,
                 const std::string& experiment, const std::string& start_time);

} // namespace miniapp::history
