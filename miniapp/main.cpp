// miniapp: Kokkos teaching kernels as validated, reproducible experiments.
// This file only wires the command line to app/*; see README.md for the data flow.
#include "core/version.hpp"
#include "app/commands.hpp"
#include "app/kokkos_launch.hpp"
#include "config/limits.hpp"
#include "config/yaml_strict.hpp"
#include "parallel/device_map.hpp"
#include "parallel/mpi_env.hpp"
#include "core/backends.hpp"
#include "core/sinks.hpp"
#include "report/run_pooling.hpp"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <exception>
#include <iostream>
#include <new>
#include <string>
#include <unistd.h>
#include <vector>

namespace {

// Kokkos' own flags (--kokkos-num-threads=4, --kokkos-device-id=1, ...) go, translated for the
// linked Kokkos (app/kokkos_launch.hpp), to Kokkos::initialize; everything else goes to CLI11.
struct SplitArgs {
  std::vector<std::string> kokkos;
  std::vector<std::string> rest;
};
SplitArgs split_args(int argc, char** argv) {
  SplitArgs s;
  s.kokkos.push_back(argv[0]);
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    (a.rfind("--kokkos-", 0) == 0 ? s.kokkos : s.rest).push_back(a);
  }
  return s;
}

// "miniapp ARGS..." as a shell would take it back, for the header of generated job scripts.
std::string command_line(const std::vector<std::string>& args) {
  std::string out = "miniapp";
  for (const auto& a : args)
    out += " " + miniapp::shell_word(a);
  return out;
}

// Running out of host memory is a resource error (exit 3), whatever the command was doing. The
// commands catch std::exception to report bad input (exit 2), and std::bad_alloc is one; so
// operator new notes each failure here (then throws as it would), and main() turns a command's
// exit 2 after one into 3. A failure nothing can catch (std::bad_alloc thrown while unwinding
// another, e.g. by a JSON document's destructor, or out of a noexcept function) reaches
// std::terminate, which then exits 3 too instead of aborting.
std::atomic<bool> out_of_memory{false};
std::terminate_handler default_terminate = nullptr;

constexpr char kOutOfMemory[] = "miniapp: out of host memory (resource: host memory)\n";

void note_out_of_memory() {
  out_of_memory = true;
  throw std::bad_alloc();
}

[[noreturn]] void terminate_out_of_memory() {
  bool bad_alloc = out_of_memory;
  if (const std::exception_ptr e = std::current_exception()) {
    try {
      std::rethrow_exception(e);
    } catch (const std::bad_alloc&) {
      bad_alloc = true;
    } catch (...) {
    }
  }
  if (bad_alloc) {
    // No allocation here: memory has run out.
    [[maybe_unused]] const auto n = ::write(2, kOutOfMemory, sizeof kOutOfMemory - 1);
    std::_Exit(miniapp::kRuntimeError);
  }
  if (default_terminate)
    default_terminate(); // what it says of any other exception
  std::abort();
}

int run_command_line(int argc, char** argv);

} // namespace

int main(int argc, char** argv) {
  using namespace miniapp;
  std::set_new_handler(note_out_of_memory);
  default_terminate = std::set_terminate(terminate_out_of_memory);
  try {
    const int code = run_command_line(argc, argv);
    if (code != kConfigError || !out_of_memory)
      return code;
  } catch (const std::bad_alloc&) {
  }
  std::cerr << kOutOfMemory;
  return kRuntimeError;
}

namespace {

int run_command_line(int argc, char** argv) {
  using namespace miniapp;
  const SplitArgs args = split_args(argc, argv);

  CLI::App app{
      "miniapp: Kokkos teaching kernels (matrix multiply, R = a*A + b*B, tile averages,\n"
      "tile index maps, transposes) run as validated experiments from YAML configs.\n"
      "Kokkos flags of 3.4 and 4.x alike (--kokkos-num-threads=N or --kokkos-threads=N,\n"
      "--kokkos-device-id=N, --kokkos-numa=N, ...) reach the linked Kokkos under the name it\n"
      "knows; an unknown --kokkos-* option is an error. `miniapp list` shows what a config\n"
      "may name; `miniapp help COMMAND` the options of a command.\n"
      "Under mpiexec with several ranks every case is distributed over a 2D process grid\n"
      "(SUMMA for matmul; one GPU per node-local rank): see docs/mpi.md.\n"
      "Exit codes: 0 ok, 2 config/usage error, 3 runtime/resource error, 4 validation failed,\n"
      "5 a row below its performance reference (--references).",
      "miniapp"};
  app.set_version_flag("--version",
                       std::string("miniapp ") + version() + " (git " + git_revision() + ")");
  app.require_subcommand(1);

  RunArgs run_args;
  auto* run = app.add_subcommand("run", "Validate CONFIG, run every case, write results");
  run->add_option("config", run_args.config, "Experiment config (YAML)")->required();
  run->add_option("--set", run_args.overrides,
                  "Override a config field: key.path=value (YAML value), e.g. repetitions=5, "
                  "backend=serial, cases.0.n=[64,128]")
      ->take_all();
  run->add_option("--output-dir", run_args.output_dir,
                  "Exact run directory to create (must not exist); default: "
                  "<output.directory>/<name>-<UTC time>[-job<SLURM_JOB_ID>]");
  run->add_flag("--print", run_args.print, "Print result matrices up to 16x16");
  run->add_flag("--quiet", run_args.quiet, "Do not print the plan before running");
  run->add_option("--label", run_args.label,
                  "Name of the run in compare tables and plot legends; default: backend, "
                  "ranks x threads, device, host");
  run->add_option("--rounds", run_args.rounds,
                  "Run the whole case list N times in turn (1..K, 1..K, ...); each row pools "
                  "its rounds and records each round's median, which compare tests across runs")
      ->check(CLI::Range(1, config::limits::kMaxRounds))
      ->capture_default_str();
  run_args.argv.assign(argv, argv + argc);
  // references and the history database (app/run_extras.hpp, docs/history.md).
  run->add_option("--references", run_args.references,
                  "Check each row against a references file (docs/history.md); rows below are "
                  "marked and the run exits 5");
  run->add_option("--db", run_args.db,
                  "Record every row in this history database (SQLite) as it is written");

  RunArgs validate_args;
  auto* validate = app.add_subcommand("validate", "Check CONFIG and print the expanded plan");
  validate->add_option("config", validate_args.config, "Experiment config (YAML)")->required();
  validate->add_option("--set", validate_args.overrides, "Override a config field")->take_all();
  validate
      ->add_option("--ranks", validate_args.ranks,
                   "Check the plan for N MPI ranks (process grid, blocks per rank, memory per "
                   "rank, single-rank cases) without starting them")
      ->check(CLI::Range(1, 1 << 20));

  JobscriptArgs job_args;
  auto* jobscript = app.add_subcommand(
      "jobscript", "Write a Slurm job script for CONFIG on a system (validates CONFIG first)");
  jobscript->add_option("config", job_args.config, "Experiment config (YAML)")->required();
  jobscript
      ->add_option("--system", job_args.system,
                   "System profile: a YAML file, or a name from jobscripts/systems "
                   "(generic-gpu, generic-amd-gpu, generic-cpu, local)")
      ->required();
  jobscript->add_option("--nodes", job_args.nodes, "Nodes")
      ->check(CLI::Range(1, 1000000))
      ->capture_default_str();
  jobscript
      ->add_option("--ranks-per-node", job_args.ranks_per_node,
                   "MPI ranks per node (default: the profile's ranks_per_node, else 1; each rank "
                   "gets one GPU on GPU systems, so at most gpus_per_node)")
      ->check(CLI::Range(1, 1000000));
  jobscript->add_option("--time", job_args.time,
                        "Wall time limit, e.g. 00:30:00 (default: the profile's)");
  jobscript->add_option("-o,--output", job_args.output_file,
                        "Write the script to FILE (default: stdout; with --submit "
                        "miniapp-<name>-<system>.sh)");
  jobscript->add_option(
      "--output-dir", job_args.output_dir,
      "The run's exact results directory (miniapp run --output-dir); %j = job id");
  jobscript->add_option("--results-dir", job_args.results_dir,
                        "Base for run directories <name>-<UTC time>-job<ID> (output.directory)");
  jobscript
      ->add_option("--set", job_args.overrides, "Override a config field (passed on to the run)")
      ->take_all();
  jobscript->add_option("--miniapp", job_args.miniapp,
                        "The program the job runs (default: this one, or the profile's 'miniapp')");
  jobscript->add_flag("--submit", job_args.submit, "Submit with sbatch and print the job id");
  jobscript->add_flag(
      "--exclusive", job_args.exclusive,
      "Ask for whole nodes (#SBATCH --exclusive; always on for multi-node GPU jobs)");
  jobscript
      ->add_option("--hint", job_args.hint,
                   "#SBATCH --hint: nomultithread (one thread per core) or multithread")
      ->check(CLI::IsMember({"nomultithread", "multithread"}));
  jobscript->add_option("--template", job_args.template_file,
                        "A site's own job template (placeholders as in docs/jobs.md; default: the "
                        "profile's 'template', else the built-in openmp or gpu one)");

  auto* info = app.add_subcommand(
      "info", "Kokkos version, backends, devices, ranks x threads, MPI (without starting it)");

  ListArgs list_args;
  auto* list = app.add_subcommand(
      "list", "Families, variants, parameters (defaults, ranges), system profiles, backends");
  list->add_option("what", list_args.what, "all, " + join(list_sections(), ", "))
      ->check(CLI::IsMember([] {
        auto s = list_sections();
        s.insert(s.begin(), "all");
        return s;
      }()))
      ->capture_default_str();
  list->add_flag("--names", list_args.names,
                 "Bare names, one per line (for scripts and shell completion)");

  std::int64_t rows = 8, cols = 9;
  std::string tile = "2x3", describe_backend = "auto", color = "auto";
  auto* describe = app.add_subcommand(
      "describe", "Print each element's global, tile and local index (C++ AMP tiled_index)");
  describe->add_option("--rows", rows, "Matrix rows")->capture_default_str();
  describe->add_option("--cols", cols, "Matrix columns")->capture_default_str();
  describe->add_option("--tile", tile, "Tile shape RxC")->capture_default_str();
  describe->add_option("--backend", describe_backend, "Backend (auto = default)")
      ->capture_default_str();
  describe->add_option("--color", color, "auto, always or never")
      ->check(CLI::IsMember({"auto", "always", "never"}))
      ->capture_default_str();

  job_args.command_line = command_line(args.rest);

  CompareArgs compare_args;
  auto* compare = app.add_subcommand(
      "compare",
      "Join runs on their cases: each run's rate, ratios to a baseline, noise, warnings");
  compare->add_option("runs", compare_args.inputs, "Run directories or results.json/.csv files");
  compare->add_option("--baseline", compare_args.baseline,
                      "Base of the ratios: run number (from 1) or a run directory; default run 1");
  compare->add_option("--format", compare_args.format, "markdown or csv")
      ->check(CLI::IsMember({"markdown", "csv"}))
      ->capture_default_str();
  compare->add_option("-o,--output", compare_args.output, "Write to FILE instead of stdout");
  compare
      ->add_option("--rate", compare_args.rate, "auto (matmul GFLOP/s, others GB/s), gflops or gbs")
      ->check(CLI::IsMember({"auto", "gflops", "gbs"}))
      ->capture_default_str();
  compare->add_flag("--with-transfers", compare_args.with_transfers,
                    "Rates from total time: host-to-device + compute + device-to-host");
  compare->add_flag("--no-pool", compare_args.no_pool,
                    "Keep runs of one config, label and host apart (by default they are pooled "
                    "into one side, tested across runs with the round as the unit)");
  compare
      ->add_option("--ignore-param", compare_args.ignore_param,
                   "Join cases as if this tuning parameter were equal, to compare its values: "
                   "tile, team_size or shape")
      ->check(CLI::IsMember(compare::ignorable_params()));
  compare
      ->add_option("--table", compare_args.table,
                   "paper1: the paper's Table 1 (axpby/flat/float32, N x N) from CPU_RUN "
                   "[GPU_RUN], markdown; portability: performance portability (PP) of each "
                   "variant per problem over the runs' platforms (with --format csv: the P3 "
                   "library's columns)")
      ->check(CLI::IsMember({"paper1", "portability"}));
  // app/cmd_history.cpp
  compare->add_option("--references", compare_args.references,
                      "Check the runs against a references file; exit 5 when a row is below");
  compare->add_option("--db", compare_args.db, "History database to select runs from (--select)");
  compare
      ->add_option(
          "--select", compare_args.select,
          "With --db: KEY=VALUE conditions (run, label, host, backend, device, "
          "experiment, since, case; globs), e.g. --select label='openmp*' since=2026-11-01")
      ->take_all();

  // the history database (app/cmd_db.cpp, app/cmd_history.cpp, docs/history.md).
  DbArgs db_args;
  auto* db = app.add_subcommand(
      "db", "The history database: import run directories (import), or rebuild it from them");
  db->add_option("action", db_args.action, "import or rebuild")
      ->check(CLI::IsMember({"import", "rebuild"}))
      ->required();
  db->add_option("runs", db_args.runs,
                 "Run directories or results.json files (a directory of runs imports each)")
      ->required();
  db->add_option("--db", db_args.db, "The SQLite database file (created if missing)")->required();
  HistoryArgs history_args;
  auto* history = app.add_subcommand(
      "history", "A case's figure across the runs, machines and time of a history database");
  history
      ->add_option("--db", history_args.db,
                   "The SQLite database file (opened read-only: nothing in it changes)")
      ->required();
  history->add_option("--case", history_args.case_pattern,
                      "Glob over case ids, e.g. 'axpby/flat/float32/*'");
  history->add_option("--label", history_args.label, "Glob over run labels");
  history->add_option("--since", history_args.since,
                      "Runs started on or after this date (YYYY-MM-DD[THH:MM[:SS]Z])");
  history
      ->add_option("--select", history_args.select,
                   "More KEY=VALUE conditions (run, host, backend, device, experiment)")
      ->take_all();
  history->add_option("--format", history_args.format, "table or csv")
      ->check(CLI::IsMember({"table", "csv"}))
      ->capture_default_str();
  history->add_option("--plot", history_args.plot,
                      "Also draw the rates per run into FILE (.png, .svg or .pdf; one file per "
                      "kernel family, FILE-FAMILY.EXT, when several)");

  PlotArgs plot_args;
  auto* plot = app.add_subcommand(
      "plot", "Plots of runs or miniapp-bench JSON (rate, speedup, roofline; PNG/SVG/PDF) via "
              "miniapp-plot (matplotlib)");
  plot->add_option("runs", plot_args.inputs,
                   "Run directories, results.json/.csv files or miniapp-bench JSON")
      ->required();
  plot->add_option("-o,--output-dir", plot_args.output_dir, "Directory for the plot files")
      ->capture_default_str();
  plot->add_option("--kind", plot_args.kind, "rate, speedup, roofline or all")
      ->check(CLI::IsMember({"rate", "speedup", "roofline", "all"}))
      ->capture_default_str();
  plot->add_option("--baseline", plot_args.baseline,
                   "Base of the speedups: run number (from 1) or a run directory; default run 1");
  plot->add_flag("--with-transfers", plot_args.with_transfers,
                 "Rates from total time: host-to-device + compute + device-to-host");
  plot->add_option("--x", plot_args.x_axis, "x axis: size, tile, variant or run")
      ->check(CLI::IsMember({"size", "tile", "variant", "run"}))
      ->capture_default_str();
  plot->add_option("--format", plot_args.format, "File formats, comma-separated: png, svg, pdf")
      ->capture_default_str();
  plot->add_option("--dpi", plot_args.dpi, "PNG resolution")->capture_default_str();

  ReportArgs report_args;
  auto* report = app.add_subcommand(
      "report", "One self-contained HTML page about runs: comparison table, plots (inline SVG), "
                "metadata side by side, warnings, commands that reproduce them");
  report->add_option("runs", report_args.inputs,
                     "Run directories or results.json/.csv files (or --db with --select)");
  report->add_option("--baseline", report_args.baseline,
                     "Base of the ratios: run number (from 1) or a run directory; default run 1");
  report
      ->add_option("-o,--output-dir", report_args.output_dir,
                   "Directory for index.html (created if missing)")
      ->required();
  report->add_option("--title", report_args.title, "Title of the page")->capture_default_str();
  report->add_flag("--with-transfers", report_args.with_transfers,
                   "Rates from total time: host-to-device + compute + device-to-host");
  // app/cmd_history.cpp
  report->add_option("--db", report_args.db, "History database to select runs from (--select)");
  report
      ->add_option("--select", report_args.select,
                   "With --db: KEY=VALUE conditions, as compare --select (docs/history.md)")
      ->take_all();

  std::vector<std::string> subcommands;
  for (const auto* sub : app.get_subcommands([](const CLI::App*) { return true; }))
    subcommands.push_back(sub->get_name());
  // `miniapp help [COMMAND]`, and a suggestion for a mistyped command (CLI11 only says that a
  // subcommand is required).
  const auto is_command = [&](const std::string& word) {
    return std::find(subcommands.begin(), subcommands.end(), word) != subcommands.end();
  };
  const auto unknown_command = [&](const std::string& word) {
    const std::string hint = config::closest(word, subcommands);
    std::cerr << "miniapp: unknown command '" << word << "'"
              << (hint.empty() ? "" : " (did you mean '" + hint + "'?)")
              << "; commands: " << join(subcommands, ", ") << " (miniapp help COMMAND)\n";
    return kConfigError;
  };
  if (!args.rest.empty() && args.rest[0] == "help") {
    if (args.rest.size() > 1 && !is_command(args.rest[1]))
      return unknown_command(args.rest[1]);
    std::cout << (args.rest.size() > 1 ? app.get_subcommand(args.rest[1])->help() : app.help());
    return kOk;
  }
  if (!args.rest.empty() && args.rest[0][0] != '-' && !is_command(args.rest[0]))
    return unknown_command(args.rest[0]);

  std::vector<std::string> rest = args.rest;
  std::reverse(rest.begin(), rest.end()); // CLI11 takes the arguments in reverse order
  try {
    app.parse(rest);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? kOk : kConfigError;
  }

  // Checked before any work, whatever the command, so a typo never passes silently.
  std::vector<std::string> kokkos_args;
  if (!kokkos_initialize_args(args.kokkos, "miniapp", kokkos_args))
    return kConfigError;

  // The other commands are one process's work: under mpiexec/srun only the launcher's rank 0 does
  // it (one job script written and submitted, not one per rank), without starting MPI.
  if (!*run && !*validate && MpiEnv::launcher_rank() != 0)
    return kOk;

  const std::string command = app.get_subcommands().front()->get_name();
  // These need neither MPI nor Kokkos.
  const int quick = run_command(command, [&] {
    if (*compare)
      return cmd_compare(compare_args);
    if (*plot)
      return cmd_plot(plot_args);
    if (*report)
      return cmd_report(report_args);
    if (*list)
      return cmd_list(list_args);
    if (*db)
      return cmd_db(db_args);
    if (*history)
      return cmd_history(history_args);
    return -1;
  });
  if (quick >= 0)
    return quick;

  // Before MPI and Kokkos start: an impossible thread count crashes inside Kokkos::initialize.
  if (const std::string problem = thread_count_problem(args.kokkos); !problem.empty()) {
    if (MpiEnv::launcher_rank() == 0) // one sentence, not one per rank
      std::cerr << "miniapp: " << problem << "\n";
    return kConfigError;
  }
  // MPI only where ranks work together, and only when a launcher started them: a singleton
  // MPI_Init costs a daemon and, without ssh/rsh, a page of errors (parallel/mpi_env.hpp).
  MpiEnv mpi(argc, argv, (*run || *validate) && MpiEnv::launched_by_mpi());
  apply_thread_binding_policy();
  for (const auto& flag : parallel::device_mapping_flags(mpi, kokkos_args))
    kokkos_args.push_back(flag);
  KokkosSession kokkos(kokkos_args);
  return run_command(
      command,
      [&] {
        if (*run)
          return cmd_run(run_args, mpi);
        if (*validate)
          return cmd_validate(validate_args, mpi);
        if (*jobscript)
          return cmd_jobscript(job_args, mpi);
        if (*info)
          return cmd_info(mpi);
        if (*describe)
          return cmd_describe(rows, cols, tile, describe_backend, color);
        return int(kConfigError);
      },
      &mpi);
}

} // namespace
