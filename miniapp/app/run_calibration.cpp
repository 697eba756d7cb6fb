#include "app/run_calibration.hpp"

#include "app/time_estimate.hpp"
#include "core/marks.hpp"
#include "core/process.hpp"
#include "plan/estimate.hpp"
#include "run/calibration_store.hpp"

#include <chrono>
#include <fstream>
#include <map>
#include <string>
#include <thread>
#include <unistd.h>

namespace miniapp {

namespace {
// When this program's static objects were made: after exec and the dynamic loader, before main.
const std::chrono::steady_clock::time_point program_loaded = std::chrono::steady_clock::now();
} // namespace

double seconds_since_process_start() {
  const double loaded =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - program_loaded).count();
  // /proc/self/stat's start is the process's creation, not its exec: a shell that ran other
  // commands and then exec'd miniapp as its last one (`bash -c 'scripts/setup.sh && miniapp run
  // ...'`) made the process before them, and the README's first command, so run, counted setup's
  // 6 min 39 s as the quickstart run's start-up, which the calibration then learnt. The /proc start
  // counts only where it is within a second of the program's loading (the loader's own time).
  std::ifstream up("/proc/uptime");
  double uptime = 0;
  const std::uint64_t ticks = process_start_ticks(::getpid());
  const long hz = sysconf(_SC_CLK_TCK);
  if (ticks == 0 || !(up >> uptime) || hz <= 0)
    return loaded;
  const double since_created = uptime - double(ticks) / double(hz);
  return since_created > loaded && since_created - loaded < 1.0 ? since_created : loaded;
}

void RunClock::open(const RunSetup& setup) {
  sink_.open(setup);
  last_ = std::chrono::steady_clock::now(); // the run directory made, the plan printed
}

double RunClock::lap() {
  const auto now = std::chrono::steady_clock::now();
  const double s = std::chrono::duration<double>(now - last_).count();
  last_ = now;
  return s;
}

void RunClock::add(const CaseResult& r) {
  CaseTiming t;
  t.wall_s = lap();
  t.ceiling_s = ceiling_pending_;
  ceiling_pending_ = 0;
  cases_.push_back(t);
  sink_.add(r);
}

void RunClock::update(std::size_t index, const CaseResult& r) {
  const double s = lap();
  if (index < cases_.size()) {
    cases_[index].wall_s += s;
    cases_[index].ceiling_s += ceiling_pending_;
  }
  ceiling_pending_ = 0;
  sink_.update(index, r);
}

void RunClock::attach(CaseResult& r, const std::string& backend) {
  const auto start = std::chrono::steady_clock::now();
  ceilings_.attach(r, backend);
  ceiling_pending_ +=
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

std::vector<CaseTiming> RunClock::timings(const std::vector<CaseResult>& results) const {
  std::vector<CaseTiming> out = cases_;
  for (std::size_t i = 0; i < out.size() && i < results.size(); ++i)
    out[i].kernel_s = results[i].compute.median;
  return out;
}

double RunClock::cases_seconds() const {
  double s = 0;
  for (const CaseTiming& t : cases_)
    s += t.wall_s;
  return s;
}

void record_run_time(std::ostream& os, const Plan& plan, int rounds,
                     const std::vector<CaseResult>& results, const RunClock& clock,
                     double estimated_s) {
  const double total = seconds_since_process_start();
  const std::vector<CaseTiming> cases = clock.timings(results);
  if (plan.ranks != 1 || !(total > 0) || results.size() != plan.cases.size() ||
      cases.size() != results.size())
    return;
  bool busy = false;
  for (const CaseResult& r : results) {
    if (r.status != Status::ok)
      return;
    busy = busy || marks_of(r, int(std::thread::hardware_concurrency())).busy;
  }
  const double outside = std::max(0.0, total - clock.cases_seconds());
  double ceilings = 0, launches = 0;
  for (const CaseTiming& t : cases) {
    ceilings += t.ceiling_s;
    launches += launches_seconds(plan, t.kernel_s, rounds);
  }
  const double host = std::max(0.0, clock.cases_seconds() - ceilings - launches);
  os << "time: " << format_seconds(total) << " (estimated " << format_seconds(estimated_s)
     << "): start-up and results " << format_seconds(outside) << ", cases' set-up and validation "
     << format_seconds(host) << ", launches " << format_seconds(launches) << ", ceilings "
     << format_seconds(ceilings) << "\n";
  // `ceilings` counts what the estimate will count: a run that reused them measured none.
  RunRecord rec =
      fit_run(plan, cases, outside, plan.settings.reuse_ceilings ? 0 : plan_ceilings(plan), rounds);
  rec.error = estimated_s > 0 ? total / estimated_s : 0;
  rec.busy = busy;
  // Each case's own kernel time, for the next estimate of the same case (Case::id()), busy when
  // the host was during that case.
  std::vector<CaseMedian> medians;
  for (std::size_t i = 0; i < cases.size(); ++i)
    medians.push_back({plan.cases[i].id(), cases[i].kernel_s,
                       marks_of(results[i], int(std::thread::hardware_concurrency())).busy});
  // ... and its host work (plan/estimate.hpp's host_time_id()).
  for (std::size_t i = 0; i < cases.size(); ++i)
    medians.push_back({host_time_id(plan.cases[i].id()), case_host_seconds(plan, cases[i], rounds),
                       medians[i].busy});
  // Each ceiling's time, under its own id (plan/estimate.hpp's ceiling_time_id()): what the cases
  // judged by it spent measuring and re-checking it.
  std::map<std::string, std::pair<double, bool>> ceilings_by_key;
  const auto key_of = ceiling_key_of(plan);
  for (std::size_t i = 0; i < cases.size(); ++i)
    if (const std::string key = key_of(plan.cases[i]); !key.empty() && cases[i].ceiling_s > 0) {
      auto& [seconds, key_busy] = ceilings_by_key[key];
      seconds += cases[i].ceiling_s;
      key_busy = key_busy || medians[i].busy;
    }
  if (!plan.settings.reuse_ceilings) {
    double all = 0;
    bool all_busy = false;
    for (const auto& [key, time] : ceilings_by_key) {
      medians.push_back({ceiling_time_id(key), time.first, time.second});
      all += time.first;
      all_busy = all_busy || time.second;
    }
    // ... and all of them together, for a plan with the same ceilings (app/time_estimate.hpp)
    if (const std::string id = plan_ceilings_time_id(plan); !id.empty() && all > 0)
      medians.push_back({id, all, all_busy});
  }
  store_calibration(calibration_path(), calibration_machine_key(plan.backend), rec, medians);
}

} // namespace miniapp
