#pragma once
// Everything a reader of results.json needs to know about where and how a run was made.
#include "plan/plan.hpp"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace miniapp {

struct ParallelInfo {
  int ranks = 1;
  int grid_p = 1, grid_q = 1;
  std::string mpi_library = "none (built without MPI)";
};

// How the run was launched, for telling runs apart later (`miniapp compare` shows the label).
struct LaunchInfo {
  std::vector<std::string> argv;      // the command line as given, program name first
  std::vector<std::string> overrides; // the --set list
  std::string config_path;
  std::string label; // --label; empty: default_label()
};

nlohmann::json collect_metadata(const Plan& plan, const ParallelInfo& par,
                                const LaunchInfo& launch = {});
// "openmp 1x16 on AMD EPYC 7763 (node01)": backend, ranks x threads per rank, device, host.
std::string default_label(const std::string& backend, int ranks, int threads,
                          const std::string& device, const std::string& host);
// The environment variables that change how a run behaves (OMP_*, KOKKOS_*, Open MPI's transport
// selection OMPI_MCA_{btl,pml,mtl,osc}*, SLURM_*, the GPU lists, LOADEDMODULES), as valid UTF-8
// strings.
nlohmann::json run_environment();
// hwloc: packages, cores, PUs, NUMA nodes and the CPUs this process is bound to.
nlohmann::json cpu_topology();
// Invalid UTF-8 bytes become U+FFFD, so results.json can always be written.
std::string utf8_clean(const std::string& s);
// The JSON text of doc (indent as nlohmann's dump), a string's bytes that are not UTF-8 (from a
// host or device name, a results.csv cell) written as U+FFFD rather than thrown as
// json.exception.type_error.316: every JSON document the program writes goes through this.
std::string json_text(const nlohmann::json& doc, int indent = -1);
nlohmann::json case_to_json(const Case& c);
nlohmann::json plan_to_json(const Plan& plan);
std::string iso8601_now();
std::string kokkos_configuration();

} // namespace miniapp
