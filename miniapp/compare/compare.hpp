#pragma once
// `miniapp compare`: join the rows of several runs (results.json / results.csv) on the case they
// measured and report each run's rate, the ratio to a baseline run and whether the difference is
// larger than the run-to-run noise. Pure logic (no Kokkos), so the unit tests drive it directly.
#include "compare/mann_whitney.hpp"
#include "results/run.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace miniapp {
namespace compare {

enum class RateKind { Auto, Gflops, Gbs };

// The two measures a time, and every rate, ratio and speedup made from it, can stand for; every
// output names its measure in its column headers (docs/compare.md, "Measures"):
//   kernel      the median compute time: the kernel launches alone, data already on the device
//   end-to-end  the median total time: host-to-device copies + compute + device-to-host copies
//               (the seed paper's method; on host backends there are no copies and the two agree)
const char* measure_name(bool with_transfers);
// One sentence defining it, for the legends under the tables.
std::string measure_definition(bool with_transfers);
// The families --rate auto judges by GFLOP/s (the family table's rate), comma-separated; the
// others by GB/s. auto_rate_legend says it for the legends under the tables.
std::string gflops_families();
std::string auto_rate_legend();

struct Options {
  std::size_t baseline = 0;    // index into the runs
  bool with_transfers = false; // time = total_median_s (h2d + compute + d2h), the paper's method
  RateKind rate = RateKind::Auto;
  // Noise across runs (compare/pooling.hpp): pool runs of one experiment on one machine
  // (--no-pool: each run its own side), and join case ids as if this tuning parameter were equal
  // (--ignore-param tile: tile 2 against tile 16; "" none).
  bool pool = true;
  std::string ignore_param;
  // Keep each cell's row (Cell::row): for readers that draw every column (compare/plot_rows.hpp).
  bool keep_rows = false;
};

// What decided a ratio's mark (compare/pooling.hpp): a test across runs on the rounds, the
// repetitions within the runs only, or without repetition times the [min, max] ranges.
enum class Test { none, rounds, repetitions, ranges };

// What one run measured for one case.
struct Cell {
  bool present = false;
  double rate = 0; // in Line::unit
  // The row's energy (results since issue 26): mean watts over its launches and its kernel rate
  // per watt, < 0 where not measured; energy_note says why (no counter, too short); both empty
  // and < 0 in files written before energy was recorded.
  double watts = -1, per_watt = -1;
  std::string per_watt_unit, energy_note;
  bool before_energy = false; // a results row with no energy fields (written before issue 26)
  // What held the device's clock down meanwhile ("power cap", ...; "none"; empty: unknown).
  std::string clock_limit;
  double t_min = 0, t_median = 0, t_max = 0; // seconds; with transfers the range is estimated
  std::string valid;
  std::vector<double> times; // every repetition (total times with transfers); may be empty
  double ratio = 0;          // rate / baseline rate (0 when either is missing)
  // Mann-Whitney U p-value of this run's repetition times against the baseline's; -1 when either
  // run lacks them (results.csv, older results.json): then the [min, max] overlap decides.
  double p_value = -1;
  bool within_noise = false; // not significant (p >= kAlpha), or without p: ranges overlap
  // Across runs (compare/pooling.hpp): each round's median time (total with transfers), the
  // test that decided, the coefficient of variation (of the rounds with 2 or more, else of the
  // repetitions; < 0 unknown), and the row's marks (core/marks.hpp: busy, disturbed, uncertain
  // ceiling); a ratio carries its own and the baseline's (ratio_marks).
  std::vector<double> rounds;
  Test test = Test::none;
  double cv = -1;
  bool cv_of_rounds = false;
  Marks marks;
  // "uncertain LOW-HIGH UNIT" where the row's ceiling is uncertain (row_ceiling_uncertain); "".
  std::string ceiling_uncertain;
  Row row; // the row measured, with Options::keep_rows; else empty
};

// One case, across all runs.
struct Line {
  std::string case_id; // the id the rows were joined on (every row has one: schema 2); else ""
  std::string family, variant, precision, size, tile; // size "4096x4096" or "MxNxK"
  std::int64_t m = 0, n = 0, k = 0;
  std::string unit;               // "GFLOP/s" or "GB/s"
  std::vector<Cell> cells;        // one per run, in the order given
  std::vector<std::string> notes; // warnings about this case
};

struct Comparison {
  std::vector<Run> runs; // rows dropped; the identity of each run
  Options options;
  std::vector<Line> lines;
  std::vector<std::string> warnings;     // run-level, then one per kind with its cases counted
  std::vector<std::string> run_warnings; // the run-level ones alone (also in warnings)
};

// Names the runs for tables and legends: each "RUN=LABEL" of `names` (RUN a run as given in
// `inputs`, or its number from 1) sets that run's label; then runs whose labels are still equal
// get their directory's name appended ("cuda 1 rank on H100 (gpu01) [paper_table1-cuda-pinned]"),
// except, where runs are pooled (`pool`), repeats of one experiment on one machine, which
// compare/pooling.hpp makes one side. Throws std::invalid_argument for an item that is not
// RUN=LABEL or names no run.
void name_runs(std::vector<Run>& runs, const std::vector<std::string>& inputs,
               const std::vector<std::string>& names, bool pool);

// The one rule that pairs rows of different runs, for compare (every table, --table paper1), plot
// and report alike: the row's case_id less its `pinned` segment when every row of every run has
// an id (schema 2: every other case parameter, seed included, tells cases apart; pinning is how
// a case's data reach the device, not what it computes, so a CPU row pairs with a pinned GPU row
// of one N and a pinned run with a pageable one, the difference a warning), else (family,
// variant, precision, m, n, k, tile), which schema 1 files also hold. `ignore_param`
// (--ignore-param) leaves that parameter's segment out too.
std::string join_key(const Row& row, bool by_id, const std::string& ignore_param);

Comparison compare_runs(const std::vector<Run>& runs, const Options& opt);

// Whether any row of the comparison recorded its energy or why it has none (files written
// before issue 26 did neither): then the outputs show the energy beside the rates.
bool energy_recorded(const Comparison& c);

// The marks of a cell's ratio to the baseline: its own and the baseline cell's.
Marks ratio_marks(const Line& l, std::size_t cell, std::size_t baseline);
// Every mark of the comparison's present cells: what its tables' legends explain.
Marks marks_shown(const Comparison& c);
} // namespace compare
} // namespace miniapp
