#pragma once
// The subcommands of `miniapp`. Each returns the process exit code:
// 0 success, 2 config or usage error (before any work), 3 runtime or resource error,
// 4 validation failed (the rows are marked invalid).
#include "parallel/mpi_env.hpp"

#include <string>
#include <vector>

namespace miniapp {

enum ExitCode { kOk = 0, kConfigError = 2, kRuntimeError = 3, kValidationFailed = 4 };

struct RunArgs {
  std::string config;
  std::vector<std::string> overrides;
  std::string output_dir; // exact run directory (must not exist); empty = under output.directory
  bool print = false;
  bool quiet = false;
};

struct JobscriptArgs {
  std::string config;
  std::string system; // a profile path or a name under jobscripts/systems
  std::vector<std::string> overrides;
  int nodes = 1;
  int ranks_per_node = 0;  // 0 = the profile's choice
  std::string time;        // empty = the profile's
  std::string output_file; // -o; empty = stdout (or a file named after the job with --submit)
  std::string output_dir;  // the run's exact directory (%j = job id)
  std::string results_dir; // base directory for run directories
  std::string miniapp;     // program path in the job; empty = this program
  bool submit = false;
  std::string command_line;
};

int cmd_run(const RunArgs& args, const MpiEnv& mpi);
int cmd_validate(const RunArgs& args, const MpiEnv& mpi);
int cmd_info(const MpiEnv& mpi);
int cmd_jobscript(const JobscriptArgs& args, const MpiEnv& mpi);
int cmd_describe(std::int64_t rows, std::int64_t cols, const std::string& tile,
                 const std::string& backend, const std::string& color);

} // namespace miniapp
