#pragma once
// Stage 1 of config -> plan -> run -> report: read and check an experiment config.
// The schema is documented in docs/config.md.
#include "config/read_text.hpp"
#include "config/value.hpp"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace miniapp::config {

struct Settings {
  std::string name;
  std::string description;
  std::string backend = "auto";
  std::string precision = "float32";
  int warmup = 2;
  int repetitions = 10;
  bool validate = true;
  double rtol = 0; // 0 = the per-kernel bound of docs/kernels.md
  std::string output_directory = "results";
  std::vector<std::string> formats = {"csv", "json"};
  bool print = false;
  bool pinned = false;
  int grid_p = 0, grid_q = 0;     // MPI process grid; 0 = chosen from the rank count
  int panel = 0;                  // SUMMA panel width; 0 = auto
  std::string transport = "auto"; // SUMMA panels: auto, host (staged MPI), device_mpi or device_ipc
  Position backend_pos, grid_pos; // where backend and mpi.grid are written (for the plan's checks)
};

// A case as written, typed: each sweepable parameter holds one or more values, each with its
// position for error messages; zip groups pair lists element by element.
struct CaseSpec {
  Position pos; // the case's map
  Value family; // a string
  std::map<std::string, std::vector<Value>> params;
  std::vector<std::string> zip_keys;
  std::vector<std::vector<Value>> zip_values; // per zip key
  std::optional<Value> init;                  // a string
  std::optional<Value> print;                 // a bool
  std::optional<Matrix> a, b;                 // explicit input matrices
};

// The config after --set, checked and typed: no YAML beyond this stage.
struct ExperimentConfig {
  std::vector<std::string> overrides;
  Settings settings;
  std::vector<CaseSpec> cases;
};

// Reads path, applies --set overrides (key.path=value, value in YAML syntax), checks everything
// that does not need a backend. Throws ConfigError("file:line:col: message").
ExperimentConfig load_config(const std::string& path, const std::vector<std::string>& overrides);
ExperimentConfig parse_config(const std::string& label, const std::string& text,
                              const std::vector<std::string>& overrides);

const std::vector<std::string>& sweep_keys();

} // namespace miniapp::config
