// `miniapp jobscript`: a Slurm job script for an experiment on a system, checked like `miniapp
// validate` first; with --submit, handed to sbatch.
#include "app/command.hpp"

#include <memory>
#include "app/commands.hpp"
#include "core/text.hpp"
#include "app/prepare_job.hpp"
#include "app/time_estimate.hpp"

#include "config/config.hpp"
#include "jobs/jobscript.hpp"
#include "jobs/scheduler.hpp"
#include "jobs/system_profile.hpp"
#include "plan/plan.hpp"
#include "results/references.hpp"
#include "core/files.hpp"
#include "core/backend_names.hpp"

#include <algorithm>

#include <filesystem>
#include <iostream>
#include <sstream>
#include <stdexcept>

namespace miniapp {

namespace fs = std::filesystem;

std::string absolute_path(const std::string& p) {
  if (p.empty())
    return p;
  // A relative path in a working directory that was removed: the path is fine, the process's
  // surroundings are not, so a resource error (exit 3, through run_command), not a config one.
  std::error_code ec;
  const fs::path abs = fs::absolute(fs::path(p), ec);
  if (ec)
    throw std::runtime_error("'" + p + "' is relative and the working directory cannot be found (" +
                             ec.message() +
                             "; resource: working directory); give an absolute path");
  return abs.lexically_normal().string();
}

namespace {

std::string this_program() {
  std::error_code ec;
  const fs::path p = fs::read_symlink("/proc/self/exe", ec);
  return ec ? std::string("miniapp") : p.string();
}

// The backend the config asks for must be the one the system runs (serial is fine anywhere on a
// CPU system; auto takes the build's default).
void check_backend(const config::ExperimentConfig& cfg, const jobs::SystemProfile& sys) {
  const std::string& b = cfg.settings.backend;
  if (b == "auto" || b == sys.backend || (b == "serial" && sys.backend == "openmp"))
    return;
  config::fail(cfg.settings.backend_pos, "backend '" + b + "' does not run on system '" + sys.name +
                                             "' (" + sys.file + "), which is for " + sys.backend);
}

// The program the job runs must have the profile's backend; only this program can be asked.
void check_program_backend(const jobs::SystemProfile& sys, const JobscriptArgs& args) {
  if (!args.miniapp.empty() || !sys.miniapp.empty())
    return; // another build, named on purpose
  const auto have = compiled_backends();
  if (sys.backend == "openmp" || std::find(have.begin(), have.end(), sys.backend) != have.end())
    return;
  throw config::ConfigError("system '" + sys.name + "' (" + sys.file + ") runs the " + sys.backend +
                            " backend, which this miniapp (backends " + join(have, ", ") +
                            ") does not have; build the " + sys.backend +
                            " preset, or name such a build with --miniapp PATH");
}

// The profile's rates, else this host's calibration (the rates it measured; docs/jobs.md).
Rates system_rates(const jobs::SystemProfile& sys) {
  Rates r = host_rates(sys.backend);
  if (sys.gflops > 0 || sys.gbs > 0)
    r.source = "rates of system profile " + sys.name;
  if (sys.gflops > 0)
    r.gflops = sys.gflops;
  if (sys.gbs > 0)
    r.gbs = sys.gbs;
  return r;
}

// The estimate against the job's time limit: a limit below it with its margin is refused, or
// with --force written with a warning.
void check_time_limit(PreparedJob& job, const JobscriptArgs& args) {
  job.rates = system_rates(job.sys);
  // A profile's rates describe another machine: this host's kernel times do not.
  const bool profile_rates = job.sys.gflops > 0 || job.sys.gbs > 0;
  job.estimate =
      estimate_time(job.plan, job.rates, job.sys.backend, args.db, "", args.rounds, !profile_rates);
  const std::string& time = job.layout.time;
  const double limit = jobs::valid_slurm_time(time) ? slurm_time_seconds(time) : 0;
  const double needed = required_limit_seconds(job.estimate.seconds);
  if (limit >= needed || limit <= 0)
    return;
  std::ostringstream margin;
  margin << "x" << kTimeMarginFactor << " + " << kTimeMarginSeconds << " s";
  if (args.force) {
    job.warning = "--force: time limit " + time + " is below " + format_seconds(needed) +
                  " (the estimate with its margin); the job may time out";
    return;
  }
  throw config::ConfigError("time limit " + time + " is below the estimated " +
                            format_seconds(job.estimate.seconds) + " with its margin (" +
                            margin.str() + " = " + format_seconds(needed) +
                            "); give a longer --time, or --force to submit it anyway");
}

} // namespace

PreparedJob prepare_job(const JobscriptArgs& args) {
  PreparedJob job;
  jobs::SystemProfile& sys = job.sys;
  jobs::JobRequest& req = job.req;
  jobs::JobLayout& layout = job.layout;
  sys = jobs::load_system_profile(jobs::find_system_profile(args.system, this_program()));
  if (!sys.references.empty()) { // checked now, not after the job waited in the queue
    sys.references = absolute_path(sys.references);
    references::load_references(sys.references);
  }
  check_program_backend(sys, args);
  // The checks of `miniapp validate`, with the same overrides and the rank count the job will
  // use (a case that needs one rank is refused here, not after queueing).
  const auto cfg = config::load_config(args.config, args.overrides);
  check_backend(cfg, sys);

  if (!args.output_dir.empty() && !args.results_dir.empty())
    throw config::ConfigError("--output-dir (the run's exact directory) and --results-dir (a base "
                              "for run directories) exclude each other");
  req.config = absolute_path(args.config);
  req.experiment = cfg.settings.name;
  req.overrides = args.overrides;
  req.nodes = args.nodes;
  req.ranks_per_node = args.ranks_per_node;
  req.time = args.time;
  req.rounds = args.rounds;
  req.output_dir = absolute_path(args.output_dir);
  req.results_dir = absolute_path(args.results_dir);
  req.miniapp = args.miniapp.empty() ? this_program() : absolute_path(args.miniapp);
  req.command = args.command_line;
  req.exclusive = args.exclusive;
  req.hint = args.hint;
  req.template_file = absolute_path(args.template_file);
  layout = jobs::layout_job(sys, req);
  if (layout.own_template)
    req.template_text = jobs::read_job_template(layout.template_name);

  PlanLimits limits; // the job's nodes, not this machine: no memory check here
  limits.ranks = layout.ranks();
  job.plan = make_plan(cfg, limits);
  check_time_limit(job, args);
  req.stop_margin_s = stop_signal_margin_s(job.estimate, slurm_time_seconds(layout.time));
  job.script = jobs::render_jobscript(sys, req);
  return job;
}

int cmd_jobscript(const JobscriptArgs& args, const MpiEnv& mpi) {
  if (mpi.rank() != 0)
    return kOk;
  PreparedJob job;
  try {
    job = prepare_job(args);
  } catch (const config::ConfigError& e) {
    std::cerr << "miniapp jobscript: " << e.what() << std::endl;
    return kConfigError;
  }
  print_estimate(std::cerr, job.plan, job.estimate, job.rates);
  if (!job.warning.empty())
    std::cerr << "miniapp jobscript: " << job.warning << std::endl;
  const jobs::SystemProfile& sys = job.sys;
  const jobs::JobRequest& req = job.req;
  const jobs::JobLayout& layout = job.layout;
  const std::string& script = job.script;

  // The one-rank default on a GPU node, said where the user looks (stdout may be the script).
  if (sys.gpu() && layout.ranks_per_node < sys.gpus_per_node && args.ranks_per_node == 0 &&
      sys.ranks_per_node == 0)
    std::cerr << "miniapp jobscript: one rank (one GPU) per node; --ranks-per-node "
              << sys.gpus_per_node << " runs one rank on each GPU (a distributed run)" << std::endl;
  std::string file = args.output_file;
  if (file.empty() && args.submit)
    file = "miniapp-" + jobs::job_file_name(req.experiment + "-" + sys.name) + ".sh";
  if (file.empty()) {
    std::cout << script << std::flush;
    return kOk;
  }
  // Never onto a file the job reads (or runs), never through a symbolic link.
  std::vector<std::string> inputs = {args.config, sys.file, req.miniapp};
  if (layout.own_template)
    inputs.push_back(layout.template_name);
  if (const int code =
          write_user_output("jobscript", [&] { write_output_file(file, script, inputs, true); }))
    return code;
  std::cerr << "miniapp jobscript: wrote " << file << " (" << sys.name << ", " << layout.ranks()
            << " rank(s): " << layout.nodes << " node(s) x " << layout.ranks_per_node
            << " per node, template " << layout.template_name << ")" << std::endl;
  if (!args.submit)
    return kOk;
  std::string id;
  try {
    id = jobs::site_scheduler().submit(file, {}, "");
  } catch (const jobs::SchedulerError& e) {
    std::cerr << "miniapp jobscript: " << e.what() << std::endl;
    return kRuntimeError;
  }
  std::cerr << "miniapp jobscript: submitted job " << id << std::endl;
  std::cout << id << std::endl;
  return kOk;
}

void add_jobscript_command(CLI::App& app, std::vector<Command>& commands, const CommandLine& line) {
  auto args = std::make_shared<JobscriptArgs>();
  auto* jobscript = app.add_subcommand(
      "jobscript", "Write a Slurm job script for CONFIG on a system (validates CONFIG first)");
  add_config_options(jobscript, args->config, args->overrides,
                     "Override a config field (passed on to the run)");
  jobscript
      ->add_option("--system", args->system,
                   "System profile: a YAML file, or a name from jobscripts/systems "
                   "(generic-gpu, generic-amd-gpu, generic-cpu, local)")
      ->required();
  jobscript->add_option("--nodes", args->nodes, "Nodes (one count; a list of counts is a study)")
      ->check(CLI::Validator(
          [](std::string& v) -> std::string {
            if (v.find(',') == std::string::npos)
              return "";
            return "takes one node count, not the list " + v + ": write a study file (nodes: [" +
                   v + "]) and run `miniapp study plan STUDY` (docs/jobs.md, Studies)";
          },
          "N"))
      ->check(CLI::Range(1, 1000000))
      ->capture_default_str();
  jobscript
      ->add_option("--ranks-per-node", args->ranks_per_node,
                   "MPI ranks per node (default: the profile's ranks_per_node, else 1; each rank "
                   "gets one GPU on GPU systems, so at most gpus_per_node)")
      ->check(CLI::Range(1, 1000000));
  jobscript->add_option("--time", args->time,
                        "Wall time limit, e.g. 00:30:00 (default: the profile's)");
  jobscript->add_option("-o,--output", args->output_file,
                        "Write the script to FILE (default: stdout; with --submit "
                        "miniapp-<name>-<system>.sh)");
  jobscript->add_option(
      "--output-dir", args->output_dir,
      "The run's exact results directory (miniapp run --output-dir); %j = job id");
  jobscript->add_option("--results-dir", args->results_dir,
                        "Base for run directories <name>-<UTC time>-job<ID> (output.directory)");
  jobscript->add_option("--miniapp", args->miniapp,
                        "The program the job runs (default: this one, or the profile's 'miniapp')");
  jobscript->add_option("--db", args->db,
                        "Estimate from this history database's kernel times where the same case "
                        "ran (backend and rank count alike; a database of this system's runs); "
                        "else from this host's earlier runs of the case (unless the profile sets "
                        "gflops or gbs), else from the model");
  // The switches of the job: whether it is submitted, written against the estimate, exclusive.
  const struct {
    const char* name;
    bool* value;
    const char* help;
  } switches[] = {
      {"--submit", &args->submit, "Submit with sbatch and print the job id"},
      {"--force", &args->force,
       "Write (and submit) the script even when --time is below the time estimate with its "
       "margin"},
      {"--exclusive", &args->exclusive,
       "Ask for whole nodes (#SBATCH --exclusive; always on for multi-node GPU jobs)"}};
  for (const auto& s : switches)
    jobscript->add_flag(s.name, *s.value, s.help);
  jobscript
      ->add_option("--hint", args->hint,
                   "#SBATCH --hint: nomultithread (one thread per core) or multithread; "
                   "wins over the profile's 'hint'")
      ->check(CLI::IsMember(jobs::hint_values()));
  jobscript->add_option("--template", args->template_file,
                        "A site's own job template (placeholders as in docs/jobs.md; default: the "
                        "profile's 'template', else the built-in openmp or gpu one)");
  args->command_line = line.text;
  commands.push_back(
      {jobscript, Needs::kokkos, [args](const MpiEnv* mpi) { return cmd_jobscript(*args, *mpi); }});
}

} // namespace miniapp
