#pragma once
// The time estimate's calibration of this host (plan/estimate.hpp): each run of `miniapp run`
// measures where its time went (its start-up, each case's host work, launches and ceilings) and
// records that as one RunRecord (run/calibration_store.hpp keeps the last few per host); the
// estimate then takes its rates from those records instead of the model's defaults. Nothing here
// reads a clock: the figures come in, so the fit is tested without depending on the machine.
#include "plan/estimate.hpp"
#include "plan/plan.hpp"

#include <string>
#include <vector>

namespace miniapp {

// One run's figures; 0 where the run had nothing to measure it by (no matmul: no gflops).
struct RunRecord {
  double start_s = 0;          // the process's time outside its cases
  double case_s = 0;           // Rates::case_s: the host work of its smallest cases
  double setup_gbs = 0;        // Rates::setup_gbs as the run's cases measured it
  double reference_gflops = 0; // matmul's host reference, validated matmul cases only
  double gbs = 0;              // memory-bound kernels: bytes over their median launch
  double gflops = 0;           // compute-bound kernels
  double ceiling_s = 0;        // seconds per ceiling measured
  double error = 0;            // measured / estimated wall time (the estimate before this run)
  bool busy = false;           // a case of the run was busy (core/marks.hpp)
};

// What the run measured of one case that ended ok (one rank, host backends).
struct CaseTiming {
  double wall_s = 0;    // from the case's start to its row (launches, ceilings, host work)
  double ceiling_s = 0; // of that, measuring its ceiling
  double kernel_s = 0;  // its median launch
};

// What a case spent besides its launches and its ceiling: its host work (set-up, the checked run,
// validation), never below 0.
double case_host_seconds(const Plan& plan, const CaseTiming& t, int rounds);

// Work below these is timed by its fixed costs, not by a rate (a 3x2 product's 36 flops "ran" at
// 1e-5 GFLOP/s, and a rate fitted from it made a 1024^3 product last 2 years): a rate is fitted
// from cases of at least kRateBytes (set-up), kRateFlops (the reference product) and launches of at
// least kRateKernelSeconds; a case's fixed host work from cases under kFixedBytes.
inline constexpr double kRateBytes = 8e6;
inline constexpr double kRateFlops = 1e8;
inline constexpr double kRateKernelSeconds = 1e-3;
inline constexpr double kFixedBytes = 1e6;

// The record of a run of `plan`: `cases` in plan order (as many as ran), `outside_s` the process's
// time outside them, `ceilings` the number it measured (ceilings_needed()).
RunRecord fit_run(const Plan& plan, const std::vector<CaseTiming>& cases, double outside_s,
                  int ceilings, int rounds);

// The most records kept per host, newest last: enough for a median that one disturbed run does not
// move, few enough that a host's calibration follows a change of the machine within a day's runs.
inline constexpr std::size_t kCalibrationRuns = 8;

// `model` with each rate replaced by the median of the records that measured it: the quiet ones
// where there are any (a loaded host runs slower than it will when quiet), else all of them.
// Source "calibrated on this host from N earlier run(s)" and the records' errors.
Rates calibrated_rates(const Rates& model, const std::vector<RunRecord>& records);

} // namespace miniapp
