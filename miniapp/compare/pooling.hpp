#pragma once
// Noise across runs (docs/compare.md, "Runs, rounds and noise"). The repetitions of one run are
// timed seconds apart in one process: they say nothing about how much a second run of the same
// config would differ, and on a shared host runs differ far more than repetitions do. So
// `compare` and `report` pool the runs of one experiment on one machine into one side, and test a
// difference with the round (`miniapp run --rounds N`; a run without rounds is one) as the unit,
// once each side has kMinRounds of them. With fewer, the repetitions can only show that the runs
// agree, never that they differ.
#include "compare/compare.hpp"
#include "compare/welch.hpp"

#include <cstddef>
#include <string>
#include <vector>

namespace miniapp {
namespace compare {

// Rounds each side needs before compare tests across runs.
constexpr std::size_t kMinRounds = 3;

// What pools runs: config hash, label, host, how samples were timed (chained, or one launch each
// in files written before) and the run's setup, last ("" when the run has no config hash, as a
// lone results.csv: it is never pooled). Runs of one --label with 1 and 2 threads, or 1 and 2
// ranks, measured different things: pooled, they were one side shown as the first's "1x1".
std::string pool_key(const Run& r);
// The setup a run's figures are of: "1x2 on CPU" (ranks x threads on host backends), "2 rank(s)
// on NVIDIA H100" (a GPU backend's host threads are idle); "?" for what is unknown.
std::string run_setup(const Run& r);

// The run's id (report/run_id.hpp) where its metadata tells it (a run id, or a start time for runs
// made before ids), else "": a results.csv alone or a miniapp-bench file is never taken for
// another run.
std::string run_identity(const Run& r);

struct Pooling {
  std::vector<Run> runs;    // one per key, in the order its first run was given
  std::size_t baseline = 0; // the pooled run holding the given baseline
  std::vector<std::vector<std::size_t>> members; // per pooled run, the given runs it holds
  std::vector<std::string> repeats; // one warning per given run that repeats a member's run id
  // One warning per experiment (config hash, label, host) whose runs differ in setup and so
  // stay apart, naming each side's setup and runs.
  std::vector<std::string> splits;
};
// Runs with one key become one: their rows (joined on the case id, else on family, variant,
// precision, size and tile) pool their repetitions and rounds; times, rates, validity and host
// load are recomputed over them. Runs alone in their key are kept as given. A run given again
// (its directory twice, a copy of it, or the same run from the history database) is one run:
// counted once, else three copies of one run were "3 runs" whose identical rounds gave p = 0.
Pooling pool_runs(const std::vector<Run>& given, std::size_t baseline);

// Tuning parameters `compare --ignore-param` accepts, and a case id without one's segment
// ("matmul/tiled/float32/128x128x128/tile=2" without tile is "matmul/tiled/float32/128x128x128"),
// so runs of two values join on one line. "" or another name: the id as it is.
const std::vector<std::string>& ignorable_params();
std::string without_param(const std::string& case_id, const std::string& param);

// A row's units across runs: each round's median (total time with transfers), or for a row
// written without rounds its median alone.
std::vector<double> round_units(const Row& r, bool with_transfers);

// Whether the host was busy around the row's case: the busy mark of marks_of (core/marks.hpp).
bool row_busy(const Row& row, const Run& run);
// Where the row's ceiling is uncertain (results columns ceiling_low and ceiling_high, written
// since issue 41; run/ceilings.hpp): "uncertain LOW-HIGH UNIT", for the warnings; else "". Tables
// mark such a row "(uncertain ceiling)" (core/marks.hpp).
std::string row_ceiling_uncertain(const Row& row);

// Fills a cell's across-run facts from its row: units, spread (of the units with 2 or more, else
// of the repetitions), and its marks (core/marks.hpp).
void describe_spread(Cell& cell, const Row& row, const Run& run, bool with_transfers);

// Decides a cell against the baseline's: p_value, within_noise and test. Returns the notes the
// decision needs (run-to-run spread unknown, too few repetitions), in the words of the warnings.
std::vector<std::string> judge(Cell& cell, const Cell& base, const std::string& base_name,
                               const std::string& name);

// The mark after a ratio: "*" differs across runs, "~" no significant difference, "?" the
// repetitions differ but the run-to-run spread is unknown, "" ranges that do not overlap.
const char* mark(const Cell& cell);
// "12% (3 rounds)", "4% (10 reps)", or "-" where unknown.
std::string spread_text(const Cell& cell);
// The CSV cells mark, test (rounds, repetitions, ranges), rounds, cv, busy, ceiling_uncertain,
// marks (the row's, core/marks.hpp's marks_csv).
std::string across_runs_csv(const Cell& cell, bool baseline);
// The legend of the marks, for the markdown and HTML tables.
std::string significance_legend(std::size_t baseline);

} // namespace compare
} // namespace miniapp
