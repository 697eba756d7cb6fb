// `miniapp run` and `miniapp validate`: config -> plan -> run -> report. Arguments, the config
// phase and printing are here; run/driver.hpp runs the cases on one rank or many.
#include "app/command.hpp"
#include "config/limits.hpp"

#include <memory>
#include "app/commands.hpp"
#include "app/load_plan.hpp"
#include "app/run_extras.hpp"
#include "app/run_calibration.hpp"
#include "app/run_resume.hpp"
#include "app/time_estimate.hpp"

#include "config/config.hpp"
#include "config/yaml_strict.hpp"
#include "jobs/scheduler.hpp"
#include "parallel/fault.hpp"
#ifdef MINIAPP_HAVE_MPI
#include "parallel/stall_watch.hpp"
#endif
#include "plan/grid.hpp"
#include "parallel/summa_model.hpp"
#include "plan/plan.hpp"
#include "results/console.hpp"
#include "results/metadata.hpp"
#include "results/results_writer.hpp"
#include "core/backend_names.hpp"
#include "core/environment.hpp"
#include "run/ceilings.hpp"
#include "core/device_info.hpp"
#include "core/host_isa.hpp"
#include "kernels/families.hpp"
#include "kernels/vendor_blas.hpp"
#include "run/driver.hpp"

#include <algorithm>
#include <fstream>
#include <iostream>
#include <new>
#include <sstream>
#include <unistd.h>

namespace miniapp {

namespace {
// Rank 0 reads the file; every rank parses the same bytes, so a config error is the same
// everywhere.
config::ExperimentConfig read_config(const RunArgs& args, const Communicator& mpi,
                                     config::ErrorList& errors) {
  if (mpi.size() == 1)
    return config::load_config(args.config, args.overrides, &errors);
  std::string packet; // 'T' + text, or 'E' + error message
  if (mpi.rank() == 0) {
    try {
      packet = "T" + config::read_text_file(args.config, "config file");
    } catch (const config::ConfigError& e) {
      packet = "E" + std::string(e.what());
    }
  }
  packet = mpi.broadcast(packet);
  if (packet[0] == 'E')
    throw config::ConfigError(packet.substr(1));
  return config::parse_config(args.config, packet.substr(1), args.overrides, &errors);
}
// The run directory's name takes --output-dir and SLURM_JOB_ID as they are (the config's parts
// are checked by its loader), and results.json records it: text that is not UTF-8 could not be
// written there, and a job id is one name, never a path. Refused before any work.
void check_run_directory_inputs(const RunArgs& args) {
  if (args.resume_given && args.resume.empty()) // it started a new run
    throw config::ConfigError("miniapp: --resume '' names no directory; give the results "
                              "directory of the run to continue");
  for (const auto& [option, dir] :
       {std::pair{"--output-dir", &args.output_dir}, std::pair{"--resume", &args.resume}})
    if (!config::first_invalid_utf8(*dir).is_null())
      throw config::ConfigError(std::string("miniapp: ") + option + " '" + utf8_clean(*dir) +
                                "' is not valid UTF-8 (results.json records the run directory); "
                                "name the directory in UTF-8");
  const std::string job_var = jobs::site_scheduler().job_id_variable();
  const char* job = env::value(job_var.c_str());
  const std::string id = job ? job : "";
  if (id.find_first_not_of("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_.+-") !=
      std::string::npos)
    throw config::ConfigError("miniapp: " + job_var + " '" + utf8_clean(id) +
                              "' is not a job id (letters, digits, '_', '.', '+', '-'); it "
                              "becomes part of the run directory's name");
}
// What each rank's arguments make the ranks do together (run/rank_agreement.hpp), compared before
// the config is read; --print, --quiet, --label, --references and --db act on rank 0 alone.
std::vector<ArgumentChoice> collective_choices(const RunArgs& args) {
  const auto given = [](const std::string& v) {
    return v.empty() ? std::string("none") : "'" + v + "'";
  };
  std::string sets;
  for (const std::string& item : args.overrides)
    sets += (sets.empty() ? "'" : " '") + item + "'";
  return {{"--resume", args.resume_given && args.resume.empty() ? "''" : given(args.resume)},
          {"--output-dir", given(args.output_dir)},
          {"--set", sets.empty() ? "none" : sets},
          {"--rounds", std::to_string(std::max(1, args.rounds))}};
}
} // namespace

// Loads and expands the config; sizes are checked against the backend's memory (per rank).
Plan load_plan(const RunArgs& args, const Communicator& mpi) {
  // Every independent error of the file, the config stage's and the plan's, reported together.
  config::ErrorList errors;
  const auto cfg = read_config(args, mpi, errors);
  const std::string backend = [&] {
    // Check the backend before asking it for its memory; make_plan reports it with its position.
    try {
      return resolve_backend(cfg.settings.backend);
    } catch (...) {
      return default_backend();
    }
  }();
  PlanLimits limits;
  limits.ranks = args.ranks > 0 ? args.ranks : mpi.size();
  const auto comp = compiled_backends();
  if (std::find(comp.begin(), comp.end(), backend) != comp.end()) {
    const DeviceInfo dev = device_info(backend);
    limits.memory_bytes = dev.memory_bytes;
    limits.memory_name = dev.name + " (" + backend + ")";
    limits.host_memory_bytes = dev.host_memory_bytes;
  }
  return make_plan(cfg, limits, errors);
}

int cmd_validate(const RunArgs& args, const MpiEnv& mpi) {
  parallel::MachineRates rates;
  try {
    rates = parallel::parse_rates(args.rates);
  } catch (const std::invalid_argument& e) {
    if (mpi.rank() == 0)
      std::cerr << "miniapp validate: " << e.what() << std::endl;
    return kConfigError;
  }
  try {
    const Plan plan = load_plan(args, mpi);
    if (mpi.rank() == 0) {
      print_plan(std::cout, plan);
      // This machine's runs only: another host's kernel times say nothing about this one.
      const Rates rates_here = host_rates(plan.backend);
      print_estimate(std::cout, plan,
                     estimate_time(plan, rates_here, plan.backend, args.db, host_name()),
                     rates_here);
      if (!args.rates.empty() && plan.ranks > 1)
        parallel::print_summa_model(std::cout, plan, rates);
    }
    return kOk;
  } catch (const config::ConfigError& e) {
    if (mpi.rank() == 0)
      std::cerr << e.what() << std::endl;
    return kConfigError;
  } catch (const std::bad_alloc& e) {
    std::cerr << "miniapp: rank " << mpi.rank() << ": " << failure_text(e)
              << " while expanding the config" << std::endl;
    return kRuntimeError;
  }
}

namespace {
// Rank 0's results: results.csv/json through the ResultsWriter, progress on stderr, and the run
// header once the directory exists.
class WriterSink final : public ResultSink {
public:
  WriterSink(const RunArgs& args, const Plan& plan, const MpiEnv& mpi, RunExtras& extras,
             const ResumeState& resume)
      : args_(args), plan_(plan), mpi_(mpi), extras_(extras), resume_(resume) {}
  void open(const RunSetup& setup) override {
    ParallelInfo par;
    par.ranks = mpi_.size();
    par.mpi_library = mpi_.library();
    if (mpi_.size() > 1) {
      par.grid_p = plan_.grid_p;
      par.grid_q = plan_.grid_q;
    }
    nlohmann::json md = collect_metadata(plan_, par, launch_info(args_));
    if (mpi_.size() > 1) {
      // false: transfers staged through host buffers
      md["mpi_device_memory"] = setup.mpi_device_memory;
      md["summa_panel"] = setup.summa_panel;
      md["summa_transport"] =
          setup.transport_unavailable.empty() ? setup.summa_transport : "unavailable";
      md["mpi_hosts"] = mpi_.hosts();
    }
    const std::string dir = resume_.active
                                ? resume_.dir
                                : create_run_directory(plan_.settings.output_directory,
                                                       plan_.settings.name, args_.output_dir);
    const HostIsa isa = host_isa();
    // The host BLAS runs only the vendor variant and the vendor GEMM ceiling (none for int32).
    const bool blas_used = std::any_of(plan_.cases.begin(), plan_.cases.end(), [](const Case& c) {
      return family(c.family).ceiling == Ceiling::vendor_gemm && c.precision != Precision::int32;
    });
    if (!is_gpu_backend(plan_.backend))
      for (const std::string& w :
           {isa_under_use(isa.built_for, isa.offered),
            blas_used ? blas_under_use(kernels::host_blas_name(), isa.offered) : std::string()})
        if (!w.empty())
          std::cerr << "miniapp: warning: " << w << std::endl;
    writer_ = std::make_unique<ResultsWriter>(dir, plan_, md, resume_);
    extras_.attach(*writer_, md);
    if (!args_.quiet) {
      print_plan(std::cout, plan_);
      if (mpi_.size() > 1)
        std::cout << "SUMMA transport: "
                  << (setup.transport_unavailable.empty() ? setup.summa_transport
                                                          : setup.transport_unavailable)
                  << "\n";
      std::cout << "parallelism: " << describe_parallelism(plan_.ranks, plan_.backend).summary()
                << "\nresults: " << writer_->directory() << std::endl;
      if (resume_.active)
        std::cout << "resume: " << resume_.kept.size() << " case(s) kept, " << resume_.to_run.size()
                  << " to run" << std::endl;
    }
    if (mpi_.size() > 1 && (args_.print || plan_.settings.print))
      std::cout << "note: result matrices are printed by single-rank runs only\n";
  }
  void add(const CaseResult& r) override {
    CaseResult row = r;
    extras_.mark(row, plan_); // --references: the row's reference fields
    writer_->add(row);
    progress_.case_done(row);
  }
  void update(std::size_t index, const CaseResult& r) override {
    CaseResult row = r;
    extras_.mark(row, plan_);
    writer_->update(index, row);
    progress_.case_done(row);
  }
  void revise(std::size_t index, const CaseResult& r) override {
    CaseResult row = r;
    extras_.mark(row, plan_);
    writer_->update(index, row);
  }
  void finish(bool interrupted) override {
    progress_.finish();
    if (const std::string error =
            writer_->finish(interrupted ? RunStatus::interrupted : RunStatus::complete);
        !error.empty())
      throw std::runtime_error(error);
  }
  void failed() noexcept override {
    if (writer_)
      writer_->finish(RunStatus::failed);
  }
  const ResultsWriter& writer() const { return *writer_; }

private:
  const RunArgs& args_;
  const Plan& plan_;
  const MpiEnv& mpi_;
  RunExtras& extras_;         // --references: marks each row; --db: records each results.json
  const ResumeState& resume_; // --resume DIR: its directory and kept rows
  std::unique_ptr<ResultsWriter> writer_;
  Progress progress_{std::cerr,
                     (resume_.active ? resume_.to_run.size() : plan_.cases.size()) *
                         std::size_t(std::max(1, args_.rounds)),
                     isatty(STDERR_FILENO) != 0};
};

// Rank 0's summary after the run: the tables, the failures, how the run ended.
void print_summary(const Plan& plan, const MpiEnv& mpi, const std::vector<CaseResult>& results,
                   bool interrupted, int code, const MeasuredCeilings& ceilings,
                   const std::string& dir, std::size_t kept) {
  const bool many = mpi.size() > 1;
  // One rank's messages name it (several ranks' come from rank 0 about all of them).
  const std::string who = many ? "miniapp: " : "miniapp: rank 0: ";
  print_results_table(std::cout, plan, results);
  if (many)
    print_rank_table(std::cout, results, mpi.size());
  else
    ceilings.print(std::cout);
  std::cout << "results written to " << dir << "/\n";
  for (const auto& r : results)
    if (r.status == Status::error || (many && r.status == Status::invalid))
      std::cerr << who << r.c.id() << ": " << for_terminal(r.message) << "\n";
  if (interrupted)
    std::cerr << who << "interrupted; "
              << kept + std::count_if(
                            results.begin(), results.end(),
                            [](const CaseResult& r) { return r.status != Status::interrupted; })
              << " of " << plan.cases.size() << " case(s) kept in " << dir << "\n";
  if (code == kValidationFailed)
    std::cerr << "miniapp: validation FAILED for at least one case (rows marked invalid)\n";
}
} // namespace

// One rank or many: the config phase here (every rank agrees on it), then the driver.
int cmd_run(const RunArgs& args, const MpiEnv& mpi) {
  Plan plan;
  parallel::FaultInjection fault;
  int code = kOk;
  std::string msg;
  RunExtras extras; // --references, --db
  if (const int differ = agree_on_arguments(mpi, collective_choices(args)))
    return differ;
  try {
    check_run_directory_inputs(args);
    plan = load_plan(args, mpi);
    fault = parallel::FaultInjection::from_environment(mpi.rank());
#ifdef MINIAPP_HAVE_MPI
    parallel::set_stall_limit(parallel::stall_seconds_from_environment());
#endif
    fault.trigger("config");
    if (mpi.rank() == 0)
      extras.load(args, plan); // rank 0 writes the results, so it alone reads and records
  } catch (const config::ConfigError& e) {
    code = kConfigError;
    msg = e.what();
  } catch (const RunExtras::DbOpenError& e) {
    code = e.code;
    msg = "miniapp: rank " + std::to_string(mpi.rank()) + ": " + e.what();
  } catch (const std::bad_alloc& e) {
    code = kRuntimeError;
    msg = "miniapp: rank " + std::to_string(mpi.rank()) + ": " + failure_text(e) +
          " while expanding the config";
  } catch (const std::exception& e) {
    code = kConfigError;
    msg = "miniapp: rank " + std::to_string(mpi.rank()) + ": config: " + e.what();
  }
  if (const Outcome o = agree_phase(mpi, "config", code, msg); o.code)
    return o.code;
  if (const int differ = agree_on_experiment(mpi, plan, args.rounds))
    return differ;
  ResumeState resume; // --resume DIR: the cases DIR lacks
  if (!args.resume.empty()) {
    if (const int refused = agree_on_resume(args, mpi, plan, resume))
      return refused;
    if (nothing_to_resume(resume)) {
      if (mpi.rank() == 0)
        std::cout << "nothing to run: all " << plan.cases.size() << " case(s) are in " << resume.dir
                  << ", which is complete" << std::endl;
      return kOk;
    }
  }
  const Plan to_run = plan_to_resume(plan, resume);

  install_stop_handlers(); // SIGUSR1's (run/stop_after_case.hpp) is installed first thing in main()
  MeasuredCeilings ceilings(plan.backend);
  if (plan.settings.reuse_ceilings)
    ceilings.reuse_from(CeilingCache(ceiling_cache_path(), ceiling_machine_key(plan.backend)));
  WriterSink sink(args, plan, mpi, extras, resume);
  RunClock clock(sink, ceilings); // where the time goes: this host's calibration of estimates
  const bool calibrates = mpi.size() == 1 && !resume.active;
  const double estimated_s = calibrates ? estimate_time(to_run, host_rates(plan.backend),
                                                        plan.backend, "", "", args.rounds)
                                              .seconds
                                        : 0;
  DriverOptions opt;
  opt.print = args.print;
  opt.fault = &fault;
  opt.rounds = args.rounds;
  const RunOutcome out = run_experiment(to_run, mpi, clock, clock, opt);
  if (out.failed_code)
    return out.failed_code;
  code = exit_code(out.results, out.interrupted);
  if (mpi.rank() == 0) {
    print_summary(plan, mpi, out.results, out.interrupted, code, ceilings,
                  sink.writer().directory(), resume.kept.size());
    code = extras.finish(sink.writer(), code, std::cout, std::cerr); // 5 when a row is below
    if (calibrates && !out.interrupted)
      record_run_time(std::cout, to_run, args.rounds, out.results, clock, estimated_s);
  }
  return code;
}

void add_run_command(CLI::App& app, std::vector<Command>& commands, const CommandLine& line) {
  auto args = std::make_shared<RunArgs>();
  auto* run = app.add_subcommand("run", "Validate CONFIG, run every case, write results");
  add_config_options(run, args->config, args->overrides,
                     "Override a config field: key.path=value (YAML value), e.g. repetitions=5, "
                     "backend=serial, cases.0.n=[64,128]");
  auto* output_dir = run->add_option("--output-dir", args->output_dir,
                                     "Exact run directory to create (must not exist); default: "
                                     "<output.directory>/<name>-<UTC time>[-job<SLURM_JOB_ID>]");
  auto* resume =
      run->add_option(
             "--resume", args->resume,
             "Continue an earlier run of the same experiment in its results directory DIR: "
             "run only the cases DIR lacks (missing, interrupted, or failed: invalid or "
             "error), each new row replacing a failed one, and add them to DIR's results; "
             "refused (exit 2) when CONFIG with its --set items, the rank count or --rounds "
             "differ from that run's; nothing left to run: exit 0. A job script made with "
             "`jobscript --output-dir DIR` passes --resume DIR when DIR holds results, so a "
             "resubmitted or requeued job resumes (docs/jobs.md, \"Resuming\")")
          ->type_name("DIR")
          ->excludes(output_dir);
  run->add_flag("--print", args->print, "Print result matrices up to 16x16");
  run->add_flag("--quiet", args->quiet, "Do not print the plan before running");
  run->add_option("--label", args->label,
                  "Name of the run in compare tables and plot legends; default: backend, "
                  "ranks x threads, device, host");
  run->add_option("--rounds", args->rounds,
                  "Run the whole case list N times in turn (1..K, 1..K, ...); each row pools "
                  "its rounds and records each round's median, which compare tests across runs")
      ->check(CLI::Range(1, config::limits::kMaxRounds))
      ->capture_default_str();
  args->argv = line.argv;
  // references and the history database (app/run_extras.hpp, docs/history.md).
  run->add_option("--references", args->references,
                  "Check each row against a references file (docs/history.md); rows below are "
                  "marked and the run exits 5");
  run->add_option("--db", args->db,
                  "Record every row in this history database (SQLite) as it is written");

  commands.push_back({run, Needs::ranks, [args, resume](const MpiEnv* mpi) {
                        args->resume_given = resume->count() > 0;
                        return cmd_run(*args, *mpi);
                      }});
}

void add_validate_command(CLI::App& app, std::vector<Command>& commands) {
  auto args = std::make_shared<RunArgs>();
  auto* validate = app.add_subcommand(
      "validate", "Check CONFIG and print the expanded plan with its notes; a config in error "
                  "gives every independent error, one file:line:col line each (exit 2)");
  add_config_options(validate, args->config, args->overrides, "Override a config field");
  validate
      ->add_option("--ranks", args->ranks,
                   "Check the plan for N MPI ranks (process grid, blocks per rank, memory per "
                   "rank, single-rank cases) without starting them")
      ->check(CLI::Range(1, 1 << 20));
  validate->add_option("--db", args->db,
                       "Estimate from this history database's kernel times where the same case "
                       "ran on this host (backend and rank count alike); else from this host's "
                       "earlier runs of the case (estimates.json), else from the model");
  validate
      ->add_option(
          "--rates", args->rates,
          std::string("With --ranks N > 1: predict the time and efficiency of each case "
                      "SUMMA distributes from these rates (key=value; docs/mpi.md, \"Model\"): ") +
              parallel::kRatesHelp)
      ->take_all();

  commands.push_back(
      {validate, Needs::ranks, [args](const MpiEnv* mpi) { return cmd_validate(*args, *mpi); }});
}

} // namespace miniapp
