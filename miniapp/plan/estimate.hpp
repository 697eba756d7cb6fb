#pragma once
// How long a plan will run: each case's seconds and the total, for `validate`, `jobscript` (which
// refuses a --time below it) and `study plan`. A case's kernel time comes from a measured median
// when the caller has one (the history database: the same case, backend and rank count), else from
// a model: its flops and bytes over the system's rates. Around the kernel: the inputs' set-up, the
// warm-up (at least core/timing.hpp's warmup_seconds on one rank), the repetitions, the host
// reference of the validation and the ceilings measured beside it. docs/jobs.md states the error.
#include "plan/plan.hpp"

#include <map>
#include <string>
#include <vector>

namespace miniapp {

// Rates a case runs at on one rank (the model's denominators).
struct Rates {
  double gflops = 0;   // compute-bound kernels (matmul), GFLOP/s
  double gbs = 0;      // memory-bound kernels, GB/s
  double host_gbs = 0; // host work per element: input set-up, validation, host<->device copies
  double reference_gflops = 0; // the host reference product of matmul's validation (float64)
  std::string source;          // where they come from, for the printout
};
// The model's rates for a backend's node (cuda and hip: one GPU; openmp: a small CPU node).
Rates default_rates(const std::string& backend);

struct CaseEstimate {
  double seconds = 0;
  bool measured = false; // the kernel time came from a measured median, not the model
};
struct PlanEstimate {
  std::vector<CaseEstimate> cases; // in plan order
  double seconds = 0;              // the whole run: start-up plus every case
};

// measured_median_s: a case id's measured median kernel time (seconds per launch) at this plan's
// backend and rank count; cases not in it are modelled.
PlanEstimate estimate_plan(const Plan& plan, const Rates& rates,
                           const std::map<std::string, double>& measured_median_s = {},
                           int rounds = 1);

// The margin a job's time limit must leave above the estimate: limit >= estimate * factor + slack.
inline constexpr double kTimeMarginFactor = 1.5;
inline constexpr double kTimeMarginSeconds = 30;
double required_limit_seconds(double estimate_s);

// "1 h 02 min", "3 min 05 s", "12.3 s": for the printout.
std::string format_seconds(double s);
// Seconds of a Slurm time that passed jobs::valid_slurm_time (MM, MM:SS, HH:MM:SS, D-HH, D-HH:MM,
// D-HH:MM:SS).
double slurm_time_seconds(const std::string& t);

// One line per case ("  [i] ~12.3 s (model)") and the total, after print_plan's lines.
void print_estimate(std::ostream& os, const Plan& plan, const PlanEstimate& e, const Rates& r);

} // namespace miniapp
