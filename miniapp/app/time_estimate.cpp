#include "app/time_estimate.hpp"

#include "config/config.hpp"
#include "history/db.hpp"
#include "history/medians.hpp"
#include "kernels/families.hpp"
#include "run/calibration_store.hpp"
#include "run/memory_levels.hpp"

#include <algorithm>
#include <cmath>
#include <thread>

namespace miniapp {

Rates host_rates(const std::string& backend) {
  return calibrated_rates(default_rates(backend),
                          load_calibration(calibration_path(), calibration_machine_key(backend)));
}

std::function<std::string(const Case&)> ceiling_key_of(const Plan& plan) {
  const bool gpu = plan.backend == "cuda" || plan.backend == "hip";
  std::vector<MemoryLevel> levels;
  if (!gpu)
    levels = host_levels(host_caches(), int(std::max(1u, std::thread::hardware_concurrency())));
  if (levels.empty())
    levels = {{"memory", 0}};
  const double ranks = std::max(1, plan.ranks);
  return [levels, ranks](const Case& c) {
    if (family(c.family).ceiling == Ceiling::vendor_gemm) // none for int32 (run/ceilings.cpp)
      return c.precision == Precision::int32
                 ? std::string()
                 : std::string(to_string(c.precision)) + " gemm " + std::to_string(c.m) + "x" +
                       std::to_string(c.n) + "x" + std::to_string(c.k);
    return levels[level_for(levels, double(case_bytes(c)) / ranks)].name;
  };
}

int plan_ceilings(const Plan& plan) {
  return int(ceiling_keys(plan, ceiling_key_of(plan)).size());
}

std::string plan_ceilings_time_id(const Plan& plan) {
  const auto key_of = ceiling_key_of(plan);
  std::map<std::string, int> cases;
  for (const Case& c : plan.cases)
    if (const std::string key = key_of(c); !key.empty())
      ++cases[key];
  std::string id = "ceilings:";
  for (const auto& [key, n] : cases)
    id += (id.size() > 9 ? "," : "") + key + "x" + std::to_string(n);
  return cases.empty() || id.size() > kCaseIdChars ? "" : id;
}

PlanEstimate estimate_time(const Plan& plan, const Rates& rates, const std::string& backend,
                           const std::string& db, const std::string& host, int rounds,
                           bool this_host_runs) {
  std::map<std::string, double> from_db;
  if (!db.empty()) {
    try {
      from_db = history::measured_medians(db, backend, plan.ranks, host);
    } catch (const std::exception& e) { // DbError, InputError: the file the user named
      throw config::ConfigError(std::string("--db: ") + e.what());
    }
  }
  // This host's kept times (kernel, host work, ceilings); only one-rank runs record the cases'
  // (app/run_calibration.cpp).
  const std::map<std::string, double> here =
      this_host_runs ? load_case_medians(calibration_path(), calibration_machine_key(backend))
                     : std::map<std::string, double>{};
  std::map<std::string, double> measured;
  if (plan.ranks == 1)
    measured = here;
  for (const auto& [id, seconds] : from_db)
    measured[id] = seconds;
  // The ceilings at the time this host's last run with the same ones took (busy or not, as a
  // case's kernel time), else each at the time the last run of it took, else the calibration's
  // time per ceiling.
  std::vector<double> ceilings;
  if (!plan.settings.reuse_ceilings) {
    if (const auto same = here.find(plan_ceilings_time_id(plan));
        same != here.end() && same->second > 0)
      ceilings = {same->second};
    else
      for (const std::string& key : ceiling_keys(plan, ceiling_key_of(plan))) {
        const auto it = here.find(ceiling_time_id(key));
        ceilings.push_back(it != here.end() ? it->second : 0);
      }
  }
  PlanEstimate e = estimate_plan(plan, rates, measured, rounds, ceilings);
  for (std::size_t i = 0; i < e.cases.size() && i < plan.cases.size(); ++i)
    if (e.cases[i].measured)
      ++(from_db.count(plan.cases[i].id()) ? e.from_database : e.from_host_runs);
  return e;
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
