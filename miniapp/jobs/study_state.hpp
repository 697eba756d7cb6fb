#pragma once
// A submitted study's state file, <study directory>/study-state.json: for every point its job
// script, its results directory and the ids of the jobs that ran it (the last one is current),
// and the collect job's. Written atomically (core/files.hpp) after every submission, so a crash
// or a full disk leaves the previous state, never half of one.
#include "jobs/study.hpp"

#include <stdexcept>
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
// Read by the strict reader (core/input_file.hpp: a regular file of at most kMaxStudyStateBytes).
// Throws config::ConfigError("path: ...") for a missing or malformed file, a field missing or of
// another type, a text with a control character, a count out of range (nodes, ranks_per_node: 1
// to kMaxJobCount; at most kMaxStudyPoints points, kMaxStudyJobs jobs a point), a job id a
// scheduler could not have given, or a job script, results directory or collect script outside
// the directory holding the file (the study's).
StudyState load_study_state(const std::string& path);
// The same checks on the file's text, as if read from `path` (which names the study's directory).
StudyState parse_study_state(const std::string& text, const std::string& path);

// Another `study submit` or `resubmit` of the study holds its lock: a resource error (exit 3).
struct StudyBusy : std::runtime_error {
  using std::runtime_error::runtime_error;
};
// The lock of a study's state: `study submit` and `resubmit` hold it from before they read the
// state (or find there is none) to after they last write it, so two of them started together
// cannot both submit every point. An flock(2) on study-state.lock beside the state file (the state
// itself is replaced by a rename, so a lock on it would hold a file no longer read), never
// waited on: the second command is refused at once, naming the lock. The kernel releases it
// however the holder ends. Throws StudyBusy, or std::runtime_error when the lock file cannot be
// created (resource: disk).
class StudyLock {
public:
  explicit StudyLock(const std::string& state_path);
  ~StudyLock();
  StudyLock(const StudyLock&) = delete;
  StudyLock& operator=(const StudyLock&) = delete;

private:
  int fd_ = -1;
};

} // namespace miniapp::jobs
