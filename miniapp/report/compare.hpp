#pragma once
// `miniapp compare`: join the rows of several runs (results.json / results.csv) on the case they
// measured and report each run's rate, the ratio to a baseline run and whether the difference is
// larger than the run-to-run noise. Pure logic (no Kokkos), so the unit tests drive it directly.
#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace miniapp {
namespace compare {

// One results row: the columns compare reads (names as in results.csv).
struct Row {
  std::string family, variant, precision;
  std::int64_t m = 0, n = 0, k = 0, tile = 0, tile_cols = 0, team_size = 0;
  double alpha = 0, beta = 0;
  std::int64_t seed = 0, warmup = 0, repetitions = 0;
  bool in_place = false, pinned = false;
  std::string status, valid; // valid: "true" | "false" | "not_checked"
  double time_min = 0, time_median = 0, time_max = 0, total_median = 0;
  double flops = 0, bytes = 0, gflops = 0, gbs = 0;
  std::string ceiling, ceiling_unit;
  double ceiling_value = 0;
};

// One run: where it came from, what it ran on, its rows.
struct Run {
  std::string source; // the path the user gave
  std::string backend, device, host, config_hash, experiment;
  bool complete = true;
  std::string details; // Kokkos version, compiler, start time (for the reader)
  double load1 = -1;   // 1-minute load average when the run started; < 0 unknown
  int host_cpus = 0;   // hardware threads of the host
  std::vector<Row> rows;
  std::string label() const; // "cuda on NVIDIA H100 (gpu01)"
};

// A run directory (holding results.json or results.csv), or either file. A results.csv whose
// directory also holds results.json takes the metadata from there. Throws std::runtime_error.
Run load_run(const std::string& path);
Run run_from_json(const nlohmann::json& doc, const std::string& source);
Run run_from_csv(const std::string& text, const std::string& source);

enum class RateKind { Auto, Gflops, Gbs };

struct Options {
  std::size_t baseline = 0;    // index into the runs
  bool with_transfers = false; // time = total_median_s (h2d + compute + d2h), the paper's method
  RateKind rate = RateKind::Auto;
};

// What one run measured for one case.
struct Cell {
  bool present = false;
  double rate = 0;                           // in Line::unit
  double t_min = 0, t_median = 0, t_max = 0; // seconds; with transfers the range is estimated
  std::string valid;
  double ratio = 0;          // rate / baseline rate (0 when either is missing)
  bool within_noise = false; // the [min, max] time ranges of this run and the baseline overlap
};

// One case, across all runs.
struct Line {
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
  std::vector<std::string> warnings; // every warning, run-level and per case
};

Comparison compare_runs(const std::vector<Run>& runs, const Options& opt);

std::string to_markdown(const Comparison& c);
std::string to_csv(const Comparison& c);

// The paper's Table 1 (R = a*A + b*B, axpby/flat/float32, square N): N, CPU time and GFLOPS,
// GPU time and GFLOPS, speedup. Time is the median total time (h2d + compute + d2h). cpu is
// runs[0]; gpu is runs[1] when given, else its columns read "pending".
std::string paper_table1_markdown(const std::vector<Run>& runs,
                                  std::vector<std::string>* warnings = nullptr);

} // namespace compare
} // namespace miniapp
