#pragma once
// What running a case produces, as every layer above the kernels sees it: the work a kernel does,
// its validation, the statistics of its timings, its status and the whole result row. The
// results schema (results/result_fields.hpp) writes these fields.
#include "core/case.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace miniapp {

struct Work {
  double flops = 0; // operations per run, as stated in docs/kernels.md
  double bytes =
      0; // minimal device-memory traffic per run (each input read once, output written once)
};

struct Validation {
  bool checked = false;
  bool passed = false;
  long long bad_elements = 0;
  double max_error = 0;  // max |out - ref| / scale over all elements
  double tolerance = 0;  // the bound each element had to meet (relative to its scale)
  std::string first_bad; // "(i,j): got x, expected y" of the first failing element (global i, j)
  // Sum of the output, of the reference, and tolerance * sum of the scales: a whole-matrix check
  // that runs on any number of ranks compare (|checksum - checksum_ref| <= checksum_bound).
  double checksum = 0, checksum_ref = 0, checksum_bound = 0;
};

// The part of the case's global matrices a KernelCase holds: everything on one rank, a rank's
// block in a distributed run (plan/grid.hpp). Inputs are generated per global element, so a
// block holds the same numbers the whole matrix has there. Only axpby and tile_average use it
// (their blocks need no communication); rows/cols < 0 mean the whole m x n.
struct Block {
  std::int64_t row0 = 0, col0 = 0, rows = -1, cols = -1;
};

// What a kernel chose at launch where the case leaves it to the kernel (tiled_rb on a GPU: K split
// into parts where the tiles leave the device idle, operands padded to whole tiles at odd sizes;
// kernels/matmul.hpp). split_k 0: the variant makes no such choice.
struct LaunchChoice {
  int split_k = 0; // the parts K was split into (1: none)
  bool padded = false;
};

struct Stats {
  double min = 0, median = 0, max = 0, mean = 0;
  std::vector<double> samples; // every repetition, in run order: compare's significance test
};
Stats summarize(std::vector<double> samples);

// How an uncertain ceiling is marked wherever it is shown: "uncertain LOW-HIGH" (one decimal).
std::string uncertain_text(double low, double high);

// The energy of a case's launches, from the counter of core/energy.hpp read around its timed
// launches (run/energy_window.hpp). joules < 0: not measured, and `note` says why (no counter on
// this machine, a window too short for the counter's update interval, several ranks).
struct EnergyUse {
  std::string counter;  // what was read, with its measured resolution and interval; "" none
  std::string note;     // why joules are not given; "" when they are
  double joules = -1;   // per launch
  double watts = -1;    // mean power over the window
  double window_s = 0;  // how long the counter was read over (0: not read)
  int launches = 0;     // launches in the window (the timed ones, then as many as it needed)
  double per_watt = -1; // the family's rate per watt (GFLOP/s/W or GB/s/W)
  std::string per_watt_unit;
  // What held the device's clock down during the window (clock_limit_names: "none", "power
  // cap", ...); "" where the counter cannot tell.
  std::string clock_limit;
};

// What became of one case. The exit code follows from these (run/exit_code.hpp).
enum class Status { ok, invalid, unsupported, error, interrupted };
const char* to_string(Status s); // "ok", "invalid", ... as written in the results

struct CaseResult {
  Case c;
  Status status = Status::ok;
  std::string message;
  Work work;
  Stats compute, h2d, d2h, total; // seconds; total = h2d + compute + d2h per repetition
  bool transfers_are_copies = false;
  Validation validation;
  double gflops = 0, gbs = 0, gflops_with_transfers = 0; // from the median times
  std::string ceiling_name;                              // what the rate is compared with
  double ceiling = 0;        // in the unit of the compared rate (GB/s or GFLOP/s)
  double pct_of_ceiling = 0; // 100 * rate / ceiling
  std::string ceiling_unit;
  // The memory level whose bandwidth is the ceiling ("L1", "L2", "L3", "memory"; "" for GEMM):
  // the smallest that holds the case's working set, work.bytes (run/memory_levels.hpp).
  std::string ceiling_level;
  // "measured" in this run or "reused" from the ceiling cache (`reuse_ceilings: true`); "" when
  // the row has no ceiling.
  std::string ceiling_source;
  // An uncertain ceiling's range (its estimates did not settle, or its level read slower than a
  // farther one also when measured again: run/ceilings.hpp); both 0 when it is certain. `ceiling`
  // is then the largest figure taken.
  double ceiling_low = 0, ceiling_high = 0;
  bool ceiling_uncertain() const { return ceiling_high > 0; }
  // The ceiling re-checked after the case (one quick estimate; 0: not re-checked, as when it was
  // measured after this very case), and whether that moved it by more than its spread
  // (run/ceilings.hpp, ceiling_moved): the machine changed around the case, so its share of the
  // ceiling is in doubt.
  double ceiling_recheck = 0;
  bool ceiling_disturbed = false;
  // Multi-rank runs (run/driver.cpp): compute/h2d/d2h/total above are then
  // the slowest rank's per repetition; these spread each rank's median over the ranks.
  struct Spread {
    double min = 0, mean = 0, max = 0;
  };
  bool distributed = false;
  Spread compute_ranks, comm_ranks, transfer_ranks;
  // The operation's time the local product did not cover (communication and staging not
  // hidden), and the share of communication + staging time that was hidden, in [0, 1].
  Spread exposed_ranks, overlap_ranks;
  double imbalance = 1;  // max / mean over ranks of the compute time
  int panel = 0;         // SUMMA panel width (matmul)
  std::string transport; // how SUMMA's panels moved (parallel/transport.hpp); empty: no SUMMA
  // The row's performance reference. The driver leaves these empty; `miniapp run --references`
  // fills them in before the row is written (results/references.hpp).
  std::string reference_status; // "met", "below", "none" (no reference applies); "" not checked
  std::string reference_unit;   // "GB/s", "GFLOP/s" or "% of ceiling"; "" no reference applies
  double reference = 0;         // the expected figure, in reference_unit
  // Each round's median compute time and median total time, in round order (`miniapp run
  // --rounds N`, run/rounds.hpp; one round without it): compare's unit across runs.
  std::vector<double> round_medians, round_total_medians;
  // The highest 1-minute load average sampled before and after the case in any round (rank 0's
  // host); < 0 unknown. core/host_load.hpp says when it is busy.
  double host_load = -1;
  // The most CPUs other work took around the case in any round (core/host_load.hpp's
  // others_cpus, a lower bound); < 0 unknown (several ranks: node-mates are the run's own).
  double host_others = -1;
  EnergyUse energy;
  // Threads per team of the timed launches (fitted to the backend where team_size was 0); 0 for
  // variants that launch no teams (flat, mdrange, vendor).
  int team_size_ran = 0;
  LaunchChoice launch; // of the timed launches
  // Launches each timed sample chained between its two fences (core/timing.hpp); the times are
  // per launch. 0: no launch was timed.
  int launches_per_sample = 0;
};

} // namespace miniapp
