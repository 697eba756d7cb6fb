#include "app/time_estimate.hpp"

#include "config/config.hpp"
#include "report/history_db.hpp"
#include "report/history_medians.hpp"

namespace miniapp {

PlanEstimate estimate_time(const Plan& plan, const Rates& rates, const std::string& backend,
                           const std::string& db, const std::string& host, int rounds) {
  std::map<std::string, double> measured;
  if (!db.empty()) {
    try {
      measured = history::measured_medians(db, backend, plan.ranks, host);
    } catch (const std::exception& e) { // DbError, InputError: the file the user named
      throw config::ConfigError(std::string("--db: ") + e.what());
    }
  }
  return estimate_plan(plan, rates, measured, rounds);
}

} // namespace miniapp
