#include "parallel/fault.hpp"
#include "core/environment.hpp"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <regex>
#include <thread>
#include <vector>

namespace miniapp::parallel {

FaultInjection FaultInjection::from_environment(int my_rank) {
  FaultInjection f;
  const char* env = env::value("MINIAPP_FAULT");
  if (!env || !*env)
    return f;
  static const std::vector<std::string> phases = {"config",     "allocation", "kernel", "pipeline",
                                                  "validation", "output",     "stall",  "lag"};
  std::smatch m;
  const std::string spec = env;
  if (!std::regex_match(spec, m, std::regex("([0-9]+):([a-z]+)")) ||
      std::find(phases.begin(), phases.end(), m[2].str()) == phases.end())
    throw std::invalid_argument("MINIAPP_FAULT='" + spec +
                                "' must be <rank>:<phase>, phase one of config, allocation, "
                                "kernel, pipeline, validation, output, stall, lag");
  f.spec_ = spec;
  f.phase_ = m[2].str();
  // A rank of more than nine digits is no rank of this run (and std::stol would throw).
  f.mine_ = m[1].length() <= 9 && std::strtol(m[1].str().c_str(), nullptr, 10) == my_rank;
  return f;
}

void FaultInjection::trigger(const std::string& phase) const {
  if (phase == "lag") { // every rank: a long phase before validation, the named one late
    if (phase_ == "lag" && !lagged_) {
      lagged_ = true; // the first validation only
      std::this_thread::sleep_for(
          std::chrono::seconds(mine_ ? kLagSeconds + kLagLateSeconds : kLagSeconds));
    }
    return;
  }
  if (armed(phase) && phase == "stall")
    for (;;) // as a rank whose node lost its link: silent, until the job ends it
      std::this_thread::sleep_for(std::chrono::seconds(1));
  if (armed(phase))
    throw InjectedFault("injected fault in phase " + phase + " (MINIAPP_FAULT=" + spec_ + ")");
}

} // namespace miniapp::parallel
