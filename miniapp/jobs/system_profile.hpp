#pragma once
// A system profile: the facts about one cluster that a job script needs (partition, account, GPUs
// and cores per node, modules, launcher). Read strictly from jobscripts/systems/*.yaml; the keys
// are in docs/jobs.md, and `miniapp schema profile` prints their JSON Schema.
#include <nlohmann/json.hpp>

#include <map>
#include <string>
#include <vector>

namespace miniapp::jobs {

struct SystemProfile {
  std::string file; // where it was read from
  std::string name;
  std::string description;
  std::string backend; // cuda | hip | openmp
  std::string partition, account, qos;
  int gpus_per_node = 0;
  int cores_per_node = 0;
  int max_nodes = 0;      // 0 = no limit
  int ranks_per_node = 0; // 0 = one per GPU (GPU backends) or 1 (openmp)
  std::string time = "00:30:00";
  std::string launcher = "srun"; // srun | mpirun
  std::vector<std::string> launcher_options;
  std::vector<std::string> sbatch_options; // extra "#SBATCH" lines, each "--key[=value]"
  std::string hint;                        // #SBATCH --hint; empty = none (--hint wins)
  std::string gpu_bind = "per_task:1";
  std::string cpu_bind;
  std::vector<std::string> modules;
  std::vector<std::pair<std::string, std::string>> environment; // in file order
  std::vector<std::string> setup;                               // shell lines, verbatim
  std::string miniapp;                                          // the program path in the job
  std::string template_file;  // a site's own job template (absolute, or relative to this file)
  std::string references;     // the job's `run --references` file (as template_file)
  double gflops = 0, gbs = 0; // one rank's rates for the time estimate; 0 = the model's default

  bool gpu() const; // a GPU backend (core/backends.hpp)
};

// The values of #SBATCH --hint, the profile's `hint` and jobscript's --hint alike.
const std::vector<std::string>& hint_values();

// Reads and checks a profile; throws config::ConfigError("file:line:col: message").
SystemProfile load_system_profile(const std::string& path);
SystemProfile parse_system_profile(const std::string& label, const std::string& text);

// A path (anything with a '/' or ending in .yaml) is used as is; a bare name NAME is looked up as
// NAME.yaml in $MINIAPP_SYSTEMS_DIR, then <program dir>/../share/miniapp/jobscripts/systems, then
// the source tree's jobscripts/systems. Throws ConfigError naming the places tried.
std::string find_system_profile(const std::string& name_or_path, const std::string& program_path);
// Those places, in that order (`miniapp list systems` shows what they hold).
std::vector<std::string> system_profile_dirs(const std::string& program_path);

// Slurm's time formats: MM, MM:SS, HH:MM:SS, D-HH, D-HH:MM, D-HH:MM:SS; minutes and seconds
// after the first field below 60, hours after a day count below 24.
bool valid_slurm_time(const std::string& t);
// The JSON Schema of such a time (a pattern of its fields; the loader checks each field's range).
nlohmann::json slurm_time_schema();

// The JSON Schema (draft-07) of system profiles, from the loader's own keys, words and bounds:
// `miniapp schema profile`, for editors and validators (docs/config.md, "Editing configs").
nlohmann::json system_profile_schema();

} // namespace miniapp::jobs
