#pragma once
// One job as `miniapp jobscript` makes it: the profile, the request and its layout, the plan for
// the job's rank count, the time estimate against the limit, and the rendered script. `jobscript`
// and `study` both go through prepare_job, so a study point is checked exactly as a job script.
#include "app/commands.hpp"
#include "jobs/jobscript.hpp"
#include "jobs/system_profile.hpp"
#include "plan/estimate.hpp"
#include "plan/plan.hpp"

#include <string>

namespace miniapp {

struct PreparedJob {
  jobs::SystemProfile sys;
  jobs::JobRequest req;
  jobs::JobLayout layout;
  Plan plan;
  Rates rates;
  PlanEstimate estimate;
  std::string script;
  std::string warning; // --force over a time limit below the estimate: said, not refused
};

// p made absolute against the current directory (as the job scripts hold every path); "" stays.
// Throws std::runtime_error (exit 3) when the current directory is gone.
std::string absolute_path(const std::string& p);

// Throws config::ConfigError (exit 2) for anything `jobscript` refuses.
PreparedJob prepare_job(const JobscriptArgs& args);

} // namespace miniapp
