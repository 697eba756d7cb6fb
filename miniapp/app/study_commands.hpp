#pragma once
// `miniapp study plan|submit|status|resubmit|collect STUDY` (docs/jobs.md, "Studies"): the
// options they share, the points of a study prepared as `jobscript` prepares a job, and the
// actions beside `plan` (app/study_submit.cpp, app/study_collect.cpp).
#include "app/prepare_job.hpp"
#include "jobs/study.hpp"

#include <string>
#include <vector>

namespace miniapp {

struct StudyArgs {
  std::string action; // plan, submit, status, resubmit, collect
  std::string study;
  std::string db;        // plan/submit: the estimates' history database; collect: where to import
  bool force = false;    // points whose time limit is below the estimate are kept
  bool resubmit = false; // status --resubmit
  std::string miniapp;   // the program the jobs run (as jobscript --miniapp)
  std::string command_line;
};

struct PlannedPoint {
  jobs::StudyPoint point;
  PreparedJob job;
};

std::string point_name(const jobs::StudyPoint& p);
// The study's directory, absolute ("" stays the current directory's).
std::string study_directory(const jobs::Study& st);
// A point's fixed results directory and job script, under the study's directory.
std::string point_output_dir(const jobs::Study& st, std::size_t index);
std::string point_script(const jobs::Study& st, std::size_t index);
// Every point prepared as `jobscript` prepares a job (its results directory fixed when
// `with_output_dirs`): the first that is refused ends it (ConfigError naming the point).
std::vector<PlannedPoint> plan_study(const jobs::Study& st, const StudyArgs& args,
                                     bool with_output_dirs);

int study_submit(const StudyArgs& args);
int study_status(const StudyArgs& args, bool resubmit);
int study_collect(const StudyArgs& args);

} // namespace miniapp
