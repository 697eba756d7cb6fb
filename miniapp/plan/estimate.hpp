#pragma once
// How long a plan will run: each case's seconds and the total, for `validate`, `jobscript` (which
// refuses a --time below it) and `study plan`. A case's kernel time comes from a measured median
// when the caller has one (the history database: the same case, backend and rank count), else from
// a model: its flops and bytes over the rates. Around the kernel: the inputs' set-up with the
// validation, the warm-up (at least core/timing.hpp's warmup_seconds on one rank), the
// repetitions, and the ceilings measured for the cases. The rates are the model's defaults or a
// calibration of this host by its earlier runs (plan/calibration.hpp). docs/jobs.md states the
// error.
#include "plan/plan.hpp"

#include <functional>
#include <map>
#include <string>
#include <vector>

namespace miniapp {

// Rates a case runs at on one rank (the model's denominators), and a run's fixed costs.
struct Rates {
  double gflops = 0;   // compute-bound kernels (matmul), GFLOP/s
  double gbs = 0;      // memory-bound kernels, GB/s
  double host_gbs = 0; // host<->device copies (GPU backends), GB/s
  // A case's bytes per second of its host work besides the timed launches: the inputs allocated
  // and set up, the checked run with its validation, the inputs reset.
  double setup_gbs = 0;
  double reference_gflops = 0; // the host reference product of matmul's validation (float64)
  double case_s = 0;    // a case's fixed host work (allocation, a launch of each kind, its row)
  double start_s = 0;   // a process's time outside its cases (start-up, results written)
  double ceiling_s = 0; // one ceiling measured (a memory level, a GEMM shape)
  // One team barrier as a host's launch pays it (Variant::team_barriers; 0 on GPUs, where a
  // barrier stays inside a multiprocessor and the flops or bytes set the time).
  double barrier_s = 0;
  std::string source; // where they come from, for the printout
  // Measured over estimated wall time of the earlier runs a calibration comes from (newest last).
  std::vector<double> errors;
};
// The model's rates for a backend's node (cuda and hip: one GPU; openmp: a small CPU node).
Rates default_rates(const std::string& backend);

struct CaseEstimate {
  double seconds = 0;
  bool measured = false; // the kernel time came from a measured median, not the model
};
struct PlanEstimate {
  std::vector<CaseEstimate> cases; // in plan order
  double ceilings_s = 0;           // the ceilings measured (counted once in the total)
  double seconds = 0;              // the whole run: start-up, every case and the ceilings
  // Of the measured cases, how many took their kernel time from this host's earlier runs
  // (run/calibration_store.hpp) and how many from the history database (the caller counts them).
  int from_host_runs = 0;
  int from_database = 0;
};

// measured_median_s: a case id's measured median kernel time (seconds per launch) at this plan's
// backend and rank count; cases not in it are modelled. ceilings: one entry for each ceiling the
// run will measure (distinct memory levels and GEMM shapes; ceiling_keys()), its seconds as an
// earlier run on this host measured it, or 0 for Rates::ceiling_s.
PlanEstimate estimate_plan(const Plan& plan, const Rates& rates,
                           const std::map<std::string, double>& measured_median_s = {},
                           int rounds = 1, const std::vector<double>& ceilings = {});

// The model's seconds of a launch's team barriers (Variant::team_barriers at the tile that runs,
// one rank's share) at `barrier_s` each; 0 for variants without them and for an autotuned tile
// (the search never keeps the barrier-bound widths). The estimate adds them; a calibration fits
// its rates net of them.
double team_barrier_seconds(const Case& c, int ranks, double barrier_s);
// The seconds of a case's warm-up and timed launches, `kernel_s` a launch (core/timing.hpp's
// rules).
double launches_seconds(const Plan& plan, double kernel_s, int rounds);
// The ceilings a run of the plan measures: the distinct keys of its cases, `key` naming the
// ceiling a case is judged by (its memory level, or its GEMM shape); "" for none.
std::vector<std::string> ceiling_keys(const Plan& plan,
                                      const std::function<std::string(const Case&)>& key);
// The id under which a ceiling's measured seconds are kept beside the cases' kernel times
// (run/calibration_store.hpp): a ceiling's time depends on its level, 1.1-1.2 s for each of
// paper_table1's L1-L3 on the 2-core development host against 3.7-4.5 s for the memory level's
// copies of hundreds of MB, so one time per ceiling estimated paper_table1's at 12.6 s for 4.3 s.
std::string ceiling_time_id(const std::string& key);
// The id under which a case's host work (its set-up, checked run and validation: its wall time
// less its launches and its ceiling) is kept: one set-up rate for every case of a host missed
// by the sizes of its pages and arrays (paper_table1's 0.044 GB/s against quickstart's; the
// second pass of tests/tools/check_estimates.py estimated paper_table1 at 19.8 s for 13.0 s).
// Where an earlier run on this host measured it, the case's estimate is that and its launches.
std::string host_time_id(const std::string& case_id);

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
