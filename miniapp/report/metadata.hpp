#pragma once
// Everything a reader of results.json needs to know about where and how a run was made.
#include "plan/plan.hpp"

#include <nlohmann/json.hpp>

namespace miniapp {

struct ParallelInfo {
  int ranks = 1;
  int grid_p = 1, grid_q = 1;
  std::string mpi_library = "none (built without MPI)";
};

nlohmann::json collect_metadata(const Plan& plan, const ParallelInfo& par);
nlohmann::json case_to_json(const Case& c);
nlohmann::json plan_to_json(const Plan& plan);
std::string iso8601_now();
std::string kokkos_configuration();

} // namespace miniapp
