#pragma once
// `miniapp run --resume DIR` on one rank or many: rank 0 reads DIR (results/resume.hpp) and decides
// which cases run; every rank learns the decision (a broadcast), so all run the same cases.
#include "app/commands.hpp"
#include "results/resume.hpp"

namespace miniapp {

// After the config phase, on every rank. Returns kOk with `state` filled (on rank 0 with the kept
// rows), or the exit code every rank ends with: kConfigError when DIR cannot be resumed (said
// once, by rank 0).
int agree_on_resume(const RunArgs& args, const MpiEnv& mpi, const Plan& plan, ResumeState& state);
// Nothing to run and DIR's run already complete: the run ends here with exit 0.
inline bool nothing_to_resume(const ResumeState& state) {
  return state.active && state.to_run.empty() && state.earlier_status == "complete";
}

} // namespace miniapp
