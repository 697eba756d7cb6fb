#pragma once
// The checks of `miniapp validate`, shared by run, validate, jobscript and miniapp-bench
// --miniapp-config: load CONFIG with its --set overrides and expand it into a plan (sizes checked
// against the backend's memory).
// Rank 0 reads args.config and broadcasts its text; every rank parses it and makes the plan for
// mpi.size() ranks. Throws config::ConfigError("file:line:col: message"), the same on every rank.
#include "app/commands.hpp"
#include "plan/plan.hpp"

namespace miniapp {

Plan load_plan(const RunArgs& args, const Communicator& mpi);

} // namespace miniapp
