#pragma once
// Stage 2 of config -> plan -> run -> report: expand sweeps into concrete cases and check each one
// (ranges that depend on the family and variant, sizes against the device memory, the backend).
#include "config/config.hpp"
#include "kernels/families.hpp"
#include "core/case.hpp"

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

namespace miniapp {

struct Plan {
  config::Settings settings;
  std::string backend; // resolved: never "auto"
  std::vector<Case> cases;
  std::string config_hash;    // of the expanded experiment (plan/config_hash.hpp)
  int ranks = 1;              // MPI ranks the plan was made for
  int grid_p = 1, grid_q = 1; // their process grid (plan/grid.hpp)
  // "file:line:col: note: ..." for what the config asks that changes nothing (a value a variant
  // does not read, a case given twice, a --set of what the file holds): printed with the plan.
  std::vector<std::string> notes;
};

struct PlanLimits {
  std::uint64_t memory_bytes = 0; // device memory available for one case; 0 = not checked
  std::string memory_name;        // what the limit is, for the message
  // Host memory for one case on one rank (its data, on a GPU the host copies, and the float64
  // values that check it: case_host_bytes); 0 = not checked. Not checked for several ranks.
  std::uint64_t host_memory_bytes = 0;
  int ranks = 1; // several: cases are distributed (block sizes, memory per rank, grid checked)
};

// Throws config::ConfigError with file:line:col, one line for each independent error: those of
// the config stage passed in `errors` (config/config.hpp load_config), then the plan's own.
Plan make_plan(const config::ExperimentConfig& cfg, const PlanLimits& limits = {},
               config::ErrorList errors = {});
void print_plan(std::ostream& os, const Plan& plan);

} // namespace miniapp
