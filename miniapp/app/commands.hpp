#pragma once
// The subcommands of `miniapp`. Each returns the process exit code:
// 0 success, 2 config or usage error (before any work), 3 runtime or resource error,
// 4 validation failed (the rows are marked invalid).
#include "parallel/mpi_env.hpp"
#include "plan/plan.hpp"

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

int cmd_run(const RunArgs& args, const MpiEnv& mpi);
// Rank 0 reads args.config and broadcasts its text; every rank parses it and makes the plan for
// mpi.size() ranks. Throws config::ConfigError (the same on every rank).
Plan load_plan(const RunArgs& args, const MpiEnv& mpi);
int cmd_validate(const RunArgs& args, const MpiEnv& mpi);
int cmd_info(const MpiEnv& mpi);
int cmd_describe(std::int64_t rows, std::int64_t cols, const std::string& tile,
                 const std::string& backend, const std::string& color);

} // namespace miniapp
