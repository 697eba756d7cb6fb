#pragma once
// `miniapp run` on several MPI ranks (cmd_run dispatches here when the world has more than one
// rank). Each phase ends with every rank agreeing on the worst status, so a failure on one rank
// stops all of them with the same exit code and a message naming that rank; a failure inside
// a communicating loop (the timed kernels) ends the job through MPI_Abort instead.
#include "app/commands.hpp"

namespace miniapp::parallel {

int run_distributed(const RunArgs& args, const MpiEnv& mpi);

} // namespace miniapp::parallel
