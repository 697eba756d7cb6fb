#pragma once
// Slurm job scripts from the templates in jobscripts/*.sh (embedded in the program at build time)
// and a system profile. The script launches `miniapp run CONFIG` and exits with its status.
#include "jobs/system_profile.hpp"

#include <string>
#include <vector>

namespace miniapp::jobs {

// What the user asked for; paths are absolute by the time they get here.
struct JobRequest {
  std::string config;                 // the experiment config, as the job will read it
  std::string experiment;             // its name (for the job name)
  std::vector<std::string> overrides; // --set key=value, passed on to miniapp run
  int nodes = 1;
  int ranks_per_node = 0;  // 0 = the profile's choice
  std::string time;        // empty = the profile's
  std::string output_dir;  // exact run directory; "%j" becomes the job id; empty = none
  std::string results_dir; // base for run directories (output.directory); empty = the config's
  std::string miniapp;     // the program the job runs
  std::string command;     // the command line that generated the script, for its header
};

// The resources a request comes to on a system.
struct JobLayout {
  std::string template_name; // openmp, cuda, hip, mpi-gpu
  int nodes = 1;
  int ranks_per_node = 1;
  int cpus_per_task = 1;
  std::string time;
};

// Throws config::ConfigError when the request does not fit the system.
JobLayout layout_job(const SystemProfile& system, const JobRequest& request);
std::string render_jobscript(const SystemProfile& system, const JobRequest& request);

// One shell word in double quotes ($, `, " and \ escaped).
std::string shell_quote(const std::string& s);
// As shell_quote, with each "%j" turned into ${SLURM_JOB_ID}.
std::string shell_quote_job_pattern(const std::string& s);

// The embedded templates (jobscripts/<name>.sh).
const std::string& job_template(const std::string& name);
std::vector<std::string> job_template_names();

} // namespace miniapp::jobs
