#include "app/run_resume.hpp"

#include "config/value.hpp"
#include "run/driver.hpp"

#include <algorithm>

namespace miniapp {

int agree_on_resume(const RunArgs& args, const MpiEnv& mpi, const Plan& plan, ResumeState& state) {
  int code = kOk;
  std::string message;
  if (mpi.rank() == 0) {
    try {
      state = read_resume_state(args.resume, plan, mpi.size(), std::max(1, args.rounds));
    } catch (const config::ConfigError& e) {
      code = kConfigError;
      message = e.what();
    }
  }
  if (const Outcome o = agree_phase(mpi, "resume", code, message); o.code)
    return o.code;
  // 'C' when DIR's run is complete already, then the positions to run.
  const std::string decided = mpi.broadcast((state.earlier_status == "complete" ? "C" : "R") +
                                            positions_text(state.to_run));
  if (mpi.rank() != 0) {
    state.active = true;
    state.dir = args.resume;
    state.earlier_status = decided[0] == 'C' ? "complete" : "";
    state.to_run = positions_from_text(decided.substr(1));
  }
  return kOk;
}

} // namespace miniapp
