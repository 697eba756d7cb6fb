#include "app/time_estimate.hpp"

#include "config/config.hpp"
#include "history/db.hpp"
#include "history/medians.hpp"

#include <algorithm>
#include <cmath>

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

int stop_signal_margin_s(const PlanEstimate& estimate, double limit_s) {
  if (limit_s <= 0)
    return 0; // no limit (Slurm reads 0 as none): nothing to warn of
  double longest = 0;
  for (const auto& c : estimate.cases)
    longest = std::max(longest, c.seconds);
  const double margin = std::max(60.0, std::ceil(required_limit_seconds(longest)));
  // sbatch takes 0 to 65535 s; a limit of one minute is warned after 30 s.
  return int(std::clamp(std::min(margin, std::floor(limit_s / 2)), 1.0, 65535.0));
}

} // namespace miniapp
