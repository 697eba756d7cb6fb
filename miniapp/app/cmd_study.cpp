// `miniapp study plan STUDY`: the jobs of a study file (jobs/study.hpp), one line per point, each
// checked exactly as `miniapp jobscript` checks a job (app/prepare_job.hpp) before anything else;
// the other actions are in app/study_submit.cpp and app/study_collect.cpp.
#include "app/command.hpp"
#include "app/commands.hpp"
#include "app/study_commands.hpp"
#include "core/text.hpp"
#include "app/prepare_job.hpp"

#include "config/config.hpp"
#include "core/backend_names.hpp"
#include "jobs/study.hpp"
#include "plan/grid.hpp"

#include <iostream>
#include <memory>
#include <sstream>

namespace miniapp {

std::string point_name(const jobs::StudyPoint& p) {
  return p.system + ": " + std::to_string(p.nodes) + " node(s) x " +
         std::to_string(p.ranks_per_node) + " rank(s) per node";
}

std::string study_directory(const jobs::Study& st) {
  std::string dir = absolute_path(st.directory.empty() ? "." : st.directory);
  while (dir.size() > 1 && dir.back() == '/')
    dir.pop_back();
  return dir;
}

std::string point_output_dir(const jobs::Study& st, std::size_t index) {
  return study_directory(st) + "/results/point-" + std::to_string(index + 1);
}

std::string point_script(const jobs::Study& st, std::size_t index) {
  return study_directory(st) + "/point-" + std::to_string(index + 1) + ".sh";
}

namespace {

// The m x n (x k) sizes of the plan's cases, each once, in plan order.
std::string sizes(const Plan& plan) {
  std::vector<std::string> seen;
  for (const Case& c : plan.cases) {
    const std::string s = std::to_string(c.m) + "x" + std::to_string(c.n) +
                          (c.uses(Param::k) ? "x" + std::to_string(c.k) : "");
    if (std::find(seen.begin(), seen.end(), s) == seen.end())
      seen.push_back(s);
  }
  std::string out;
  for (std::size_t i = 0; i < seen.size() && i < 4; ++i)
    out += (i ? ", " : "") + seen[i];
  return seen.size() > 4 ? out + ", ..." : out;
}

} // namespace

std::vector<PlannedPoint> plan_study(const jobs::Study& st, const StudyArgs& args,
                                     bool with_output_dirs) {
  const config::ExperimentConfig cfg = config::load_config(st.config, {});
  std::vector<PlannedPoint> out;
  for (const jobs::StudyPoint& p : jobs::study_points(st)) {
    JobscriptArgs j;
    j.config = st.config;
    j.system = p.system;
    j.nodes = p.nodes;
    j.ranks_per_node = p.ranks_per_node;
    j.time = st.time;
    j.rounds = st.rounds;
    j.db = args.db;
    j.force = args.force;
    j.miniapp = args.miniapp;
    j.command_line = args.command_line;
    if (with_output_dirs)
      j.output_dir = point_output_dir(st, out.size());
    try {
      if (st.scaling == jobs::Scaling::weak) {
        const parallel::GridShape grid =
            cfg.settings.grid_p > 0 ? parallel::GridShape{cfg.settings.grid_p, cfg.settings.grid_q}
                                    : parallel::choose_grid(p.ranks());
        j.overrides = jobs::weak_scaling_overrides(cfg, grid);
      }
      out.push_back({p, prepare_job(j)});
    } catch (const config::ConfigError& e) {
      throw config::ConfigError(st.file + ": point " + std::to_string(out.size() + 1) + " (" +
                                point_name(p) + "): " + e.what());
    }
  }
  return out;
}

namespace {

int study_plan(const StudyArgs& args) {
  std::vector<PlannedPoint> points;
  jobs::Study st;
  try {
    st = jobs::load_study(args.study);
    points = plan_study(st, args, false);
  } catch (const config::ConfigError& e) {
    std::cerr << "miniapp study: " << e.what() << std::endl;
    return kConfigError;
  }
  double total = 0;
  std::cout << "study " << st.name << ": " << points.size() << " point(s), "
            << (st.scaling == jobs::Scaling::weak ? "weak" : "strong") << " scaling of "
            << st.config << ", directory " << st.directory << "\n";
  for (std::size_t i = 0; i < points.size(); ++i) {
    const PreparedJob& j = points[i].job;
    jobs::StudyPoint named = points[i].point;
    named.system = j.sys.name; // the profile's name, not the file it was found in
    std::cout << "  [" << i + 1 << "] " << point_name(named) << " = " << j.plan.ranks
              << " rank(s), grid " << j.plan.grid_p << "x" << j.plan.grid_q << ", "
              << j.plan.cases.size() << " case(s) " << sizes(j.plan) << ", estimated "
              << format_seconds(j.estimate.seconds) << ", time limit " << j.layout.time
              << (j.warning.empty() ? "" : " (below the estimate: --force)") << "\n";
    if (!j.req.overrides.empty()) // what the job's run is given: the sizes of this point
      std::cout << "      --set " << join(j.req.overrides, " ") << "\n";
    total += j.estimate.seconds;
  }
  std::cout << "estimated time of all points: " << format_seconds(total) << "\n";
  return kOk;
}

int cmd_study(const StudyArgs& args, const MpiEnv& mpi) {
  if (mpi.rank() != 0)
    return kOk;
  if (args.action == "plan")
    return study_plan(args);
  if (args.action == "submit")
    return study_submit(args);
  if (args.action == "collect")
    return study_collect(args);
  return study_status(args, args.resubmit || args.action == "resubmit");
}

} // namespace

void add_study_command(CLI::App& app, std::vector<Command>& commands, const CommandLine& line) {
  auto args = std::make_shared<StudyArgs>();
  auto* study = app.add_subcommand(
      "study", "A scaling or cross-system study from a study file (docs/jobs.md, Studies): plan "
               "lists its jobs, each checked as jobscript checks one; submit writes and submits "
               "them and a collect job after them; status shows each point's state (--resubmit, "
               "or resubmit: failed, timed-out, cancelled and unsubmitted points again); collect "
               "imports the finished points into the history database and writes the scaling "
               "report");
  study->add_option("action", args->action, "plan, submit, status, resubmit or collect")
      ->required()
      ->check(CLI::IsMember({"plan", "submit", "status", "resubmit", "collect"}));
  study->add_option("study", args->study, "The study file (YAML)")->required();
  study->add_option("--db", args->db,
                    "plan, submit: estimate from this history database's kernel times (as "
                    "jobscript --db); collect: import the points into it (default "
                    "<study directory>/history.db)");
  study->add_flag("--resubmit", args->resubmit,
                  "status: submit failed, timed-out, cancelled and unsubmitted points again (as "
                  "resubmit)");
  study->add_flag("--force", args->force,
                  "Keep points whose time limit is below their estimate (as jobscript --force)");
  study->add_option("--miniapp", args->miniapp,
                    "The program the jobs run (as jobscript --miniapp; default: this one, or each "
                    "profile's 'miniapp')");
  args->command_line = line.text;
  commands.push_back(
      {study, Needs::kokkos, [args](const MpiEnv* mpi) { return cmd_study(*args, *mpi); }});
}

} // namespace miniapp
