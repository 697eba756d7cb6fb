#pragma once
// A study file: one experiment config run as a set of jobs (points) over systems, node counts and
// ranks per node, for a strong or weak scaling or a cross-system comparison. Read by the same
// strict loader as configs and profiles (file:line:col, did-you-mean, config/limits.hpp); the
// schema is in docs/jobs.md ("Studies").
#include "config/config.hpp"
#include "plan/grid.hpp"

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace miniapp::jobs {

enum class Scaling { strong, weak };

struct Study {
  std::string file; // where it was read from
  std::string name;
  std::string config;               // the experiment config (absolute, or relative to the file)
  std::vector<std::string> systems; // profile names or files (relative to the study file)
  std::vector<int> nodes, ranks_per_node;
  Scaling scaling = Scaling::strong;
  int rounds = 1;        // each job's run: the case list this many times (miniapp run --rounds)
  std::string time;      // each job's limit; "" = each profile's
  std::string directory; // job scripts, state and results; default <study dir>/<name>
};

struct StudyPoint {
  std::string system;
  int nodes = 1, ranks_per_node = 1;
  int ranks() const { return nodes * ranks_per_node; }
};

// Throws config::ConfigError("file:line:col: message").
Study load_study(const std::string& path);
// The JSON Schema (draft-07) of study files, from the loader's own keys and bounds: `miniapp
// schema study`, for editors and validators (docs/jobs.md, "Studies").
nlohmann::json study_schema();
Study parse_study(const std::string& label, const std::string& text);
// Every system x nodes x ranks per node, in file order (systems outermost).
std::vector<StudyPoint> study_points(const Study& s);

// Weak scaling: the config's sizes are one rank's block; on a P x Q grid every case's m grows by
// P and n by Q (k stays: each rank's product keeps its depth). The --set overrides that say so,
// or none at one rank. A size swept in a zip group is refused at its position.
std::vector<std::string> weak_scaling_overrides(const config::ExperimentConfig& cfg,
                                                parallel::GridShape grid);

} // namespace miniapp::jobs
