#include "plan/estimate.hpp"

#include "core/timing.hpp"
#include "kernels/families.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ostream>
#include <sstream>

namespace miniapp {

namespace {

// Costs that are not a kernel's, measured on the development machine (2 cores, OpenMP): a
// process's start (Kokkos, metadata, the results files) and a case's fixed part (its ceiling
// lookup, allocation, the row written).
constexpr double kStartSeconds = 0.5;
constexpr double kCaseSeconds = 0.05;
// Host passes over a case's elements besides the kernel: random inputs set up, the result read
// back and checked against the host reference (the memory-bound families' validation).
constexpr double kHostPasses = 4;

bool gpu_backend(const std::string& b) {
  return b == "cuda" || b == "hip";
}

} // namespace

Rates default_rates(const std::string& backend) {
  Rates r;
  if (gpu_backend(backend)) {
    r.gflops = 20000; // an SGEMM well below an H100's 51 TFLOP/s (tiled kernels are slower)
    r.gbs = 1500;
    r.host_gbs = 5; // pageable copies and host-side set-up
    r.reference_gflops = 5;
    r.source = "model rates for one GPU";
  } else {
    r.gflops = 20;
    r.gbs = 8;
    r.host_gbs = 2;
    r.reference_gflops = 1;
    r.source = "model rates for a CPU node";
  }
  return r;
}

double required_limit_seconds(double estimate_s) {
  return estimate_s * kTimeMarginFactor + kTimeMarginSeconds;
}

PlanEstimate estimate_plan(const Plan& plan, const Rates& rates,
                           const std::map<std::string, double>& measured_median_s, int rounds) {
  const auto& s = plan.settings;
  const double ranks = std::max(1, plan.ranks);
  const bool gpu = gpu_backend(plan.backend);
  PlanEstimate out;
  out.seconds = kStartSeconds;
  for (const Case& c : plan.cases) {
    const Family& f = family(c.family);
    // One rank's share: SUMMA and local blocks divide the work evenly over the grid.
    const double bytes = double(case_bytes(c)) / ranks;
    const double flops =
        f.rate == Rate::gflops ? 2.0 * double(c.m) * double(c.n) * double(c.k) / ranks : 0.0;
    CaseEstimate e;
    double kernel = flops / (rates.gflops * 1e9) + (flops > 0 ? 0.0 : bytes / (rates.gbs * 1e9));
    if (const auto it = measured_median_s.find(c.id()); it != measured_median_s.end()) {
      kernel = it->second;
      e.measured = true;
    }
    const double copies = gpu ? 2 * bytes / (rates.host_gbs * 1e9) : 0.0; // upload + download
    const int launches = std::max(1, s.warmup) + s.repetitions;
    double warmup = std::max(1, s.warmup) * kernel;
    if (plan.ranks == 1) // untimed launches last at least warmup_seconds (core/timing.hpp)
      warmup = std::max(warmup, warmup_seconds);
    double launched = s.repetitions * kernel;
    // One rank: samples of at least kernel_sample_seconds, kernel_span_seconds in all
    // (core/timing.hpp).
    if (plan.ranks == 1)
      launched = std::max(s.repetitions * std::max(kernel, kernel_sample_seconds),
                          kernel_span_seconds(gpu, s.energy));
    const double timed = launched + launches * copies;
    double check = 0;
    if (s.validate)
      check = flops > 0 ? flops / (rates.reference_gflops * 1e9) : 0.0;
    const double host = kHostPasses * bytes / (rates.host_gbs * 1e9);
    e.seconds = kCaseSeconds + host + check + std::max(1, rounds) * (warmup + timed);
    out.seconds += e.seconds;
    out.cases.push_back(e);
  }
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
  os << "estimated time: " << format_seconds(e.seconds) << " (" << e.seconds << " s)";
  if (any_model)
    os << "; model: " << r.gflops << " GFLOP/s, " << r.gbs << " GB/s, host " << r.host_gbs
       << " GB/s, host reference " << r.reference_gflops << " GFLOP/s (" << r.source << ")";
  os << "\n";
}

} // namespace miniapp
