#pragma once
// A config's text planned for `ranks` ranks: the plan, estimate, calibration and case-median tests
// read their plans through this one helper.
#include "config/config.hpp"
#include "plan/plan.hpp"

#include <string>

namespace miniapp {

inline Plan plan_of(const std::string& text, int ranks = 1) {
  PlanLimits limits;
  limits.ranks = ranks;
  return make_plan(config::parse_config("t.yaml", text, {}), limits);
}

} // namespace miniapp
