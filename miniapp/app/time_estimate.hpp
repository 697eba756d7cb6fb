#pragma once
// A plan's time estimate (plan/estimate.hpp) with the kernel times the history database holds for
// the same cases, backend and rank count: what `validate`, `jobscript` and `study plan` print.
#include "plan/estimate.hpp"

#include <string>

namespace miniapp {

// db: the history database ("" = the model only); host: a glob over its runs' hosts ("" = any).
// A database that cannot be read throws config::ConfigError (the user named it).
PlanEstimate estimate_time(const Plan& plan, const Rates& rates, const std::string& backend,
                           const std::string& db, const std::string& host, int rounds = 1);

} // namespace miniapp
