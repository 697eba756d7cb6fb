#pragma once
// Stage 1 of config -> plan -> run -> report: read and check an experiment config.
// The schema is documented in docs/config.md.
#include "config/read_text.hpp"
#include "config/value.hpp"

#include <map>
#include <optional>
#include <set>
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
  bool energy = true; // read the energy counter around each case's launches (run/energy_window.hpp)
  bool reuse_ceilings = false; // ceilings from this machine's ceiling cache (run/ceiling_cache.hpp)
  int grid_p = 0, grid_q = 0;  // MPI process grid; 0 = chosen from the rank count
  int panel = 0;               // SUMMA panel width; 0 = auto
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
  // Keys whose value could not be read (their errors are reported): the plan makes no check that
  // depends on them.
  std::set<std::string> unread;
};

// The config after --set, checked and typed: no YAML beyond this stage.
struct ExperimentConfig {
  std::vector<std::string> overrides;
  // What the reader should know but is no error ("LABEL:line:col: note: ..."): a --set that
  // changes nothing. The plan adds its own (plan/plan.hpp Plan::notes).
  std::vector<std::string> notes;
  Settings settings;
  std::vector<CaseSpec> cases;
};

// Reads path, applies --set overrides (key.path=value, value in YAML syntax), checks everything
// that does not need a backend. Throws ConfigError("file:line:col: message"), one line for each
// independent error of the file. Given `errors`, it records them there and returns what it could
// read instead, for the plan to add its own (plan/plan.hpp make_plan); a file that is not sound
// YAML, or a --set that cannot be applied, still throws at once.
ExperimentConfig load_config(const std::string& path, const std::vector<std::string>& overrides,
                             ErrorList* errors = nullptr);
ExperimentConfig parse_config(const std::string& label, const std::string& text,
                              const std::vector<std::string>& overrides,
                              ErrorList* errors = nullptr);

const std::vector<std::string>& sweep_keys();
// The keys a config may hold at the top level and in a case (sweep keys first), and the values
// of the keys that take one of a few words: the loader checks against these, and the JSON Schema
// (config/schema.hpp) lists them.
const std::vector<std::string>& top_level_keys();
const std::vector<std::string>& case_keys();
const std::vector<std::string>& init_kinds();     // a case's init
const std::vector<std::string>& output_formats(); // output.formats
const std::vector<std::string>& transports();     // mpi.transport

} // namespace miniapp::config
