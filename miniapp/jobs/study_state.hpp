#pragma once
// A submitted study's state file, <study directory>/study-state.json: for every point its job
// script, its results directory and the ids of the jobs that ran it (the last one is current),
// and the collect job's. Written atomically (core/files.hpp) after every submission, so a crash
// or a full disk leaves the previous state, never half of one.
#include "jobs/study.hpp"

#include <string>
#include <vector>

namespace miniapp::jobs {

struct PointState {
  StudyPoint point;        // point.system as the study file names it
  std::string system_name; // the profile's name
  std::string script;      // the job script (absolute)
  std::string output_dir;  // the run's results directory (absolute, fixed: a rerun resumes there)
  std::vector<std::string> jobs;
};

struct StudyState {
  std::string study;      // the study's name
  std::string study_file; // absolute
  std::string scheduler;  // jobs/scheduler.hpp's name()
  bool weak = false;
  std::vector<PointState> points;
  std::string collect_script;
  std::vector<std::string> collect_jobs;
};

std::string study_state_path(const Study& s);
void save_study_state(const std::string& path, const StudyState& state);
// Throws config::ConfigError("path: ...") for a missing or malformed file, a count out of range
// (nodes, ranks_per_node: 1 to kMaxJobCount; at most kMaxStudyPoints points), or a job script,
// results directory or collect script outside the directory holding the file (the study's).
StudyState load_study_state(const std::string& path);

} // namespace miniapp::jobs
