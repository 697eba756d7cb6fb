#pragma once
// A run read back from its results (results.json, results.csv, miniapp-bench's JSON or the history
// database): where it came from, what it ran on, and its rows, as `compare`, `report`, `history`,
// the references and `run --references` read them. Pure logic (no Kokkos).
#include "core/case.hpp"
#include "core/marks.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace miniapp {
namespace compare {

// One results row: the columns compare reads (names as in results.csv), read through the results
// table (results/result_fields.hpp) from schema 1 or 2 results.json or a results.csv.
struct Row {
  std::string case_id; // Case::id(); empty in files written before schema 2
  std::string family, variant, precision;
  // The other case parameters (m, n, tile, ...: the rows of core/case_fields.hpp) are in `fields`,
  // read through these: 0, 0.0, false or "" where the file has no value. shape is the tile shape
  // that ran (empty in files written before shapes).
  std::int64_t integer(std::string_view name) const;
  double number(std::string_view name) const;
  bool flag(std::string_view name) const;
  std::string text(std::string_view name) const;
  std::int64_t warmup = 0, repetitions = 0;
  std::string status, valid; // valid: "true" | "false" | "not_checked"
  double time_min = 0, time_median = 0, time_max = 0, total_median = 0;
  double flops = 0, bytes = 0, gflops = 0, gbs = 0;
  std::string ceiling, ceiling_unit;
  double ceiling_value = 0;
  std::int64_t ranks = 0;
  // Every repetition (results.json since the significance test; empty in results.csv and older
  // results): seconds, in run order.
  std::vector<double> compute_times, h2d_times, d2h_times;
  // Param bits the file wrote as null (schema 2: parameters the case's variant does not use); their
  // values then read as 0 and are not compared.
  unsigned unused_params = 0;
  bool uses(Param p) const { return (unused_params & unsigned(p)) == 0; }
  // The file has the energy columns (null where not measured): false in files written before
  // energy was recorded.
  bool energy_columns = false;
  // The columns of the results table that the file has a value for, typed (integers, doubles,
  // text, booleans, lists of numbers); a column without one is absent (not null), so a row costs
  // what its file holds: for readers that want more than the members above.
  nlohmann::json fields;
};

// One run: where it came from, what it ran on, its rows.
struct Run {
  std::string source; // the path the user gave
  std::string backend, device, host, config_hash, experiment;
  std::string experiment_hash; // the config hash without the backend; empty in older runs
  bool complete = true;
  std::string details;     // Kokkos version, compiler, start time (for the reader)
  double load1 = -1;       // 1-minute load average when the run started; < 0 unknown
  int host_cpus = 0;       // hardware threads of the host
  int ranks = 0;           // MPI ranks; 0 unknown
  int threads = 0;         // host threads per rank; 0 unknown
  std::string binding;     // OMP_PROC_BIND, OMP_PLACES and the CPUs the process was bound to
  std::string given_label; // metadata "label" (miniapp run --label or its default)
  nlohmann::json metadata; // results.json "metadata" as recorded (null from a results.csv alone)
  int schema_version = 0;  // results.json's; 0 for a results.csv read alone
  std::vector<Row> rows;
  std::string label() const; // "cuda 1x16 on NVIDIA H100 (gpu01)"
  std::string shape() const; // "1x16" (ranks x threads), "?" parts unknown
};

// The row's marks (core/marks.hpp) from its columns host_load, ceiling_disturbed and
// ceiling_high, on a host of host_cpus CPUs (Run::host_cpus): what every reader of results shows.
Marks marks_of(const Row& row, int host_cpus);

// A run directory (holding results.json or results.csv), or either file. A results.csv whose
// directory also holds results.json takes the metadata from there. Throws std::runtime_error.
Run load_run(const std::string& path);
Run run_from_json(const nlohmann::json& doc, const std::string& source);
Run run_from_csv(const std::string& text, const std::string& source);
// miniapp-bench's Google Benchmark JSON (a "benchmarks" array, no "results"): its kernel
// benchmarks, named by case id, as a results.json document (results/bench_json.cpp): one row per
// case, every repetition's time, the rates from its counters, the backend and device from its
// context. load_run reads it so. Throws std::runtime_error when no benchmark is a case's.
bool is_bench_json(const nlohmann::json& doc);
nlohmann::json bench_as_results(const nlohmann::json& doc, const std::string& source);
// a results.json parsed with the same checks as load_run (size, nesting depth, valid JSON),
// for readers that keep the raw document too (the history database). Throws std::runtime_error.
nlohmann::json read_results_json(const std::string& path);
// The one parse of results JSON text, wherever it was kept (a results.json, or the documents the
// history database stores): the size and nesting limits of config/limits.hpp, then valid JSON.
// Throws std::runtime_error starting with source.
nlohmann::json parse_results_text(const std::string& text, const std::string& source);

} // namespace compare
} // namespace miniapp
