#include "plan/estimate.hpp"

#include "core/timing_rule.hpp"
#include "kernels/families.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ostream>
#include <set>
#include <sstream>

namespace miniapp {

namespace {

bool gpu_backend(const std::string& b) {
  return b == "cuda" || b == "hip";
}

} // namespace

Rates default_rates(const std::string& backend) {
  Rates r;
  // Costs that are not a kernel's, for a host without calibration records. Measured on the
  // development machine (2 cores, OpenMP, 2026-11-29) at a load of 7-15, no quiet run being
  // available: a process outside its cases 0.4-0.5 s (Kokkos, hwloc, the host BLAS check, the
  // results files; load-independent); one ceiling 0.5-2.7 s. A case's host work (inputs set up,
  // checked run, validation, reset: page faults and memsets, expensive on this VM) read
  // 0.006-0.018 GB/s at those loads; 0.2 GB/s is an assumed quiet figure (quickstart's 192 MB per
  // case in 1 s), which a host's first run replaces with its own.
  r.start_s = 0.4;
  r.case_s = 0.05;
  r.ceiling_s = 0.6;
  r.setup_gbs = 0.2;
  if (gpu_backend(backend)) {
    r.gflops = 20000; // an SGEMM well below an H100's 51 TFLOP/s (tiled kernels are slower)
    r.gbs = 1500;
    r.host_gbs = 5; // pageable copies
    r.reference_gflops = 5;
    r.source = "built-in model rates for one GPU";
  } else {
    r.gflops = 20;
    r.gbs = 8;
    r.host_gbs = 2;
    r.reference_gflops = 1;
    // matmul tiled, float32, on 2 OpenMP threads of the development machine (2026-11-30, quiet):
    // teams of 2 at 1024 ran 2.7e8 barriers in 51.4 s a launch at tile 2 and 3.4e7 in 6.1 s at
    // tile 4 (190 and 180 ns a barrier, their few products included; 140 ns at 512, tile 2); at
    // 20 GFLOP/s alone matmul_tiles.yaml was estimated at 27.6 s for a run of 15 minutes.
    r.barrier_s = 1.9e-7;
    r.source = "built-in model rates for a CPU node";
  }
  return r;
}

double required_limit_seconds(double estimate_s) {
  return estimate_s * kTimeMarginFactor + kTimeMarginSeconds;
}

double launches_seconds(const Plan& plan, double kernel, int rounds) {
  const auto& s = plan.settings;
  const bool gpu = gpu_backend(plan.backend);
  double warmup = std::max(1, s.warmup) * kernel;
  if (plan.ranks == 1) // untimed launches last at least warmup_seconds (core/timing.hpp)
    warmup = std::max(warmup, warmup_seconds);
  double launched = s.repetitions * kernel;
  // One rank: samples of at least kernel_sample_seconds, kernel_span_seconds in all
  // (core/timing.hpp).
  if (plan.ranks == 1)
    launched = std::max(s.repetitions * std::max(kernel, kernel_sample_seconds),
                        kernel_span_seconds(gpu, s.energy));
  return std::max(1, rounds) * (warmup + launched);
}

double team_barrier_seconds(const Case& c, int ranks, double barrier_s) {
  const Variant& v = family(c.family).variant(c.variant);
  if (!v.team_barriers || c.tile_auto)
    return 0;
  Case at_tile = c;
  at_tile.tile = c.tile > 0 ? c.tile : v.tile;
  return double(v.team_barriers(at_tile)) / std::max(1, ranks) * barrier_s;
}

std::vector<std::string> ceiling_keys(const Plan& plan,
                                      const std::function<std::string(const Case&)>& key) {
  std::set<std::string> keys;
  for (const Case& c : plan.cases)
    if (std::string k = key(c); !k.empty())
      keys.insert(std::move(k));
  return {keys.begin(), keys.end()};
}

std::string ceiling_time_id(const std::string& key) {
  return "ceiling:" + key;
}

std::string host_time_id(const std::string& case_id) {
  return "host:" + case_id;
}

PlanEstimate estimate_plan(const Plan& plan, const Rates& rates,
                           const std::map<std::string, double>& measured_median_s, int rounds,
                           const std::vector<double>& ceilings) {
  const auto& s = plan.settings;
  const double ranks = std::max(1, plan.ranks);
  const bool gpu = gpu_backend(plan.backend);
  PlanEstimate out;
  out.seconds = rates.start_s;
  for (const Case& c : plan.cases) {
    const Family& f = family(c.family);
    // One rank's share: SUMMA and local blocks divide the work evenly over the grid.
    const double bytes = double(case_bytes(c)) / ranks;
    const double flops =
        f.rate == Rate::gflops ? 2.0 * double(c.m) * double(c.n) * double(c.k) / ranks : 0.0;
    CaseEstimate e;
    double kernel = flops / (rates.gflops * 1e9) + (flops > 0 ? 0.0 : bytes / (rates.gbs * 1e9));
    kernel += team_barrier_seconds(c, plan.ranks, rates.barrier_s);
    if (const auto it = measured_median_s.find(c.id()); it != measured_median_s.end()) {
      kernel = it->second;
      e.measured = true;
    }
    const double copies = gpu ? 2 * bytes / (rates.host_gbs * 1e9) : 0.0; // upload + download
    const int launches = std::max(1, s.warmup) + s.repetitions;
    const double launched = launches_seconds(plan, kernel, rounds);
    const double timed = launched + std::max(1, rounds) * launches * copies;
    // Validation: the checked launch (a kernel's time: 51 s of matmul_tiles' tile-2 case was
    // missing from its estimate), and matmul's host reference product.
    const double check =
        s.validate ? kernel + (flops > 0 ? flops / (rates.reference_gflops * 1e9) : 0.0) : 0.0;
    e.seconds = rates.case_s + bytes / (rates.setup_gbs * 1e9) + check + timed;
    // A case's host work as an earlier run measured it: its wall time less its launches
    // (plan/calibration.cpp), so the timed copies to and from a GPU are in it already. Adding
    // them again estimated weak_scaling on an H200 at 66.1 s for runs of 52.0 and 46.7 s.
    if (const auto it = measured_median_s.find(host_time_id(c.id())); it != measured_median_s.end())
      e.seconds = it->second + launched;
    out.seconds += e.seconds;
    out.cases.push_back(e);
  }
  for (const double measured : ceilings)
    out.ceilings_s += measured > 0 ? measured : rates.ceiling_s;
  out.seconds += out.ceilings_s;
  return out;
}

std::string format_seconds(double s) {
  char buf[64];
  if (s < 60)
    std::snprintf(buf, sizeof buf, "%.1f s", s);
  else if (s < 3600)
    std::snprintf(buf, sizeof buf, "%d min %02d s", int(s) / 60, int(s) % 60);
  else
    std::snprintf(buf, sizeof buf, "%d h %02d min", int(s) / 3600, (int(s) % 3600) / 60);
  return buf;
}

double slurm_time_seconds(const std::string& t) {
  double days = 0;
  std::string rest = t;
  const bool has_days = t.find('-') != std::string::npos;
  if (const auto dash = t.find('-'); has_days) {
    days = std::stod(t.substr(0, dash));
    rest = t.substr(dash + 1);
  }
  std::vector<double> f;
  std::stringstream ss(rest);
  for (std::string part; std::getline(ss, part, ':');)
    f.push_back(std::stod(part));
  double secs = 0;
  if (!has_days) { // MM, MM:SS, HH:MM:SS
    if (f.size() == 1)
      secs = f[0] * 60;
    else if (f.size() == 2)
      secs = f[0] * 60 + f[1];
    else
      secs = f[0] * 3600 + f[1] * 60 + f[2];
  } else { // D-HH, D-HH:MM, D-HH:MM:SS
    secs = f[0] * 3600 + (f.size() > 1 ? f[1] * 60 : 0) + (f.size() > 2 ? f[2] : 0);
  }
  return days * 86400 + secs;
}

void print_estimate(std::ostream& os, const Plan& plan, const PlanEstimate& e, const Rates& r) {
  bool any_model = false;
  for (std::size_t i = 0; i < plan.cases.size() && i < e.cases.size(); ++i) {
    os << "  [" << plan.cases[i].index + 1 << "] estimated " << format_seconds(e.cases[i].seconds)
       << (e.cases[i].measured ? " (measured kernel time)" : " (model)") << "\n";
    any_model = any_model || !e.cases[i].measured;
  }
  os << "estimated time: " << format_seconds(e.seconds) << " (" << e.seconds << " s";
  if (e.ceilings_s > 0)
    os << ", of which ceilings " << format_seconds(e.ceilings_s);
  os << "); " << r.source;
  const auto measured = [&](int n, const char* where) {
    if (n > 0)
      os << ", kernel times of " << n << " of " << e.cases.size() << " case(s) from " << where;
  };
  measured(e.from_host_runs, "this host's earlier runs");
  measured(e.from_database, "the history database");
  // The figures after a colon, the source before it (tests/tools/check_estimates.py prints it).
  os << ": ";
  if (any_model)
    os << r.gflops << " GFLOP/s, " << r.gbs << " GB/s, ";
  os << "set-up " << r.setup_gbs << " GB/s, start " << r.start_s << " s";
  if (!r.errors.empty()) {
    // The error of the estimates made before those runs: |measured / estimated - 1|.
    double worst = 0;
    for (double x : r.errors)
      worst = std::max(worst, std::abs(x - 1));
    os << "; error on the last " << r.errors.size() << " run(s): within "
       << std::lround(100 * worst) << "%";
  }
  os << "\n";
}

} // namespace miniapp
