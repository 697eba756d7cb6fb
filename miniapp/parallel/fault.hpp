#pragma once
// Fault injection for the multi-rank error paths: MINIAPP_FAULT=<rank>:<phase> makes that rank
// fail in that phase (config, allocation, kernel, pipeline, validation, output), so tests can
// check that every rank stops with the right exit code and a message naming the rank, and never
// hangs. pipeline: inside SUMMA's loop while the next panel's broadcasts are in flight. stall: at
// the same place the rank stops taking part without a word (sleeps until it is ended), as one
// whose node lost its link: the others' bounded waits must end the job (parallel/stall_watch.hpp).
// lag: every rank works kLagSeconds before its first validation, the named rank kLagLateSeconds
// more, as a long phase whose one rank runs late: the others must wait for it, not stop, however
// short the stall limit (tests give 3 s).
#include <stdexcept>
#include <string>

namespace miniapp::parallel {

constexpr int kLagSeconds = 8, kLagLateSeconds = 4;

struct InjectedFault : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class FaultInjection {
public:
  // Reads MINIAPP_FAULT; throws std::invalid_argument when it is set but malformed.
  static FaultInjection from_environment(int my_rank);
  bool armed(const std::string& phase) const { return mine_ && phase == phase_; }
  // Throws InjectedFault when armed for this phase on this rank (stall: never returns).
  void trigger(const std::string& phase) const;

private:
  bool mine_ = false;
  std::string phase_;
  std::string spec_;
  mutable bool lagged_ = false;
};

} // namespace miniapp::parallel
