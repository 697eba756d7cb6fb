// `miniapp compare` (join runs, rates and ratios, markdown or CSV) and `miniapp plot` (runs the
// shipped matplotlib script). Neither touches Kokkos: they read finished runs.
#include "app/command.hpp"
#include "compare/pooling.hpp"

#include <memory>
#include "app/commands.hpp"
#include "app/plot_script.hpp"

#include "core/sinks.hpp"
#include "core/text.hpp"
#include "kernels/paper_views.hpp"
#include "compare/tables.hpp"
#include "compare/portability.hpp"
#include "core/files.hpp"

#include <climits>
#include <cstdlib>
#include <iostream>

namespace miniapp {

namespace {

constexpr const char* kRunsHelp = "Run directories, results.json/.csv files or miniapp-bench JSON";

bool all_digits(const std::string& s) {
  return !s.empty() && s.find_first_not_of("0123456789") == std::string::npos;
}

std::string real_path(const std::string& p) {
  char buf[PATH_MAX];
  return ::realpath(p.c_str(), buf) ? std::string(buf) : p;
}

} // namespace

// --baseline: a 1-based run number, or a run given on the command line (or a further one,
// which then joins the comparison as run 1).
std::size_t resolve_baseline(const std::string& baseline, std::vector<std::string>& inputs) {
  if (baseline.empty())
    return 0;
  if (all_digits(baseline)) {
    // Nine digits at most, so the number cannot overflow (std::stoul's "stoul" must not leak).
    const std::size_t n = baseline.size() <= 9 ? std::strtoul(baseline.c_str(), nullptr, 10) : 0;
    if (n < 1 || n > inputs.size())
      throw std::invalid_argument("--baseline " + baseline + ": there are " +
                                  std::to_string(inputs.size()) + " run(s), numbered from 1");
    return n - 1;
  }
  const std::string want = real_path(baseline);
  for (std::size_t i = 0; i < inputs.size(); ++i)
    if (inputs[i] == baseline || real_path(inputs[i]) == want)
      return i;
  inputs.insert(inputs.begin(), baseline);
  return 0;
}

int load_runs(const std::string& command, const RunSources& from, std::vector<std::string>& inputs,
              std::vector<compare::Run>& runs, std::size_t& baseline_index) {
  const auto input_error = [&](const std::exception& e) {
    std::cerr << "miniapp " << command << ": " << for_terminal(e.what()) << "\n";
    return kConfigError;
  };
  try {
    baseline_index = resolve_baseline(from.baseline, inputs);
    for (const auto& in : inputs)
      runs.push_back(compare::load_run(in));
  } catch (const std::exception& e) {
    return input_error(e);
  }
  // Runs from the history database (app/cmd_history.cpp), after the named ones.
  if (const int code = add_selected_runs(command, from.db, from.select, from.named_runs, runs))
    return code;
  try {
    compare::name_runs(runs, inputs, from.names, from.pool);
  } catch (const std::exception& e) {
    return input_error(e);
  }
  return kOk;
}

int cmd_compare(const CompareArgs& args) {
  std::vector<std::string> inputs = args.inputs;
  std::vector<compare::Run> runs;
  compare::Options opt;
  opt.with_transfers = args.with_transfers;
  opt.pool = !args.no_pool;
  opt.ignore_param = args.ignore_param;
  opt.rate = args.rate == "gflops" ? compare::RateKind::Gflops
             : args.rate == "gbs"  ? compare::RateKind::Gbs
                                   : compare::RateKind::Auto;
  const RunSources from{args.baseline,        args.db, args.select, args.names,
                        !args.inputs.empty(), opt.pool};
  if (const int code = load_runs("compare", from, inputs, runs, opt.baseline))
    return code;
  // A check against references.
  const int reference_code = check_compare_references(args, runs);
  if (reference_code == kConfigError)
    return reference_code;

  std::string text;
  std::vector<std::string> warnings;
  try {
    if (args.table == "paper1") {
      if (!args.baseline.empty() || args.format != "markdown") {
        std::cerr << "miniapp compare: --table paper1 writes markdown from CPU_RUN [GPU_RUN]; "
                     "--baseline and --format csv do not apply\n";
        return kConfigError;
      }
      text = compare::paper_table1_markdown(runs, &warnings);
    } else if (args.table == "portability") {
      const compare::Portability pp = compare::performance_portability(runs, opt.with_transfers);
      text =
          args.format == "csv" ? compare::portability_csv(pp) : compare::portability_markdown(pp);
      warnings = compare::compare_runs(runs, opt).run_warnings;
    } else {
      const compare::Comparison c = compare::compare_runs(runs, opt);
      text = args.format == "csv" ? compare::to_csv(c) : compare::to_markdown(c);
      warnings = c.warnings;
    }
  } catch (const std::exception& e) {
    std::cerr << "miniapp compare: " << for_terminal(e.what()) << "\n";
    return kConfigError;
  }

  // Each warning printed once: the comparison's markdown on stdout has them in its own section.
  const bool text_has_warnings = args.table.empty() && args.format == "markdown";
  if (!args.output.empty() || !text_has_warnings)
    print_warnings("compare", warnings);
  if (args.output.empty()) {
    std::cout << text;
    return reference_code;
  }
  std::vector<std::string> read = args.inputs; // never onto a run it read
  if (!args.baseline.empty())
    read.push_back(args.baseline);
  if (const int code =
          write_user_output("compare", [&] { write_output_file(args.output, text, read, false); }))
    return code;
  std::cerr << "miniapp compare: wrote " << args.output << "\n";
  return reference_code;
}

int cmd_plot(const PlotArgs& args) {
  std::vector<std::string> inputs = args.inputs;
  std::vector<compare::Run> runs;
  PlotRequest request;
  request.with_transfers = args.with_transfers;
  // Read as compare reads them; each run drawn as given (no pooling).
  const RunSources from{args.baseline, "", {}, args.names, true, false};
  if (const int code = load_runs("plot", from, inputs, runs, request.baseline))
    return code;
  if (args.kind == "speedup" && runs.size() < 2) {
    std::cerr << "miniapp plot: a speedup plot needs two or more runs\n";
    return kConfigError;
  }
  std::vector<std::string> argv = {"--output-dir", args.output_dir, "--kind", args.kind};
  argv.insert(argv.end(),
              {"--x", args.x_axis, "--format", args.format, "--dpi", std::to_string(args.dpi)});
  std::string why;
  int rc = -1;
  try {
    rc = draw_plots(runs, request, argv, why);
  } catch (const std::exception& e) { // the table not written (disk full, ...)
    why = e.what();
  }
  if (rc >= 0)
    return rc;
  std::cerr << "miniapp plot: " << for_terminal(why)
            << " (matplotlib needs Debian's python3-matplotlib)\n";
  return kRuntimeError;
}

void add_compare_command(CLI::App& app, std::vector<Command>& commands) {
  auto args = std::make_shared<CompareArgs>();
  auto* compare = app.add_subcommand(
      "compare",
      "Join runs on their cases: each run's rate, ratios to a baseline, noise, warnings");
  add_runs_options(compare, *args, kRunsHelp, "Base of the ratios");
  compare->add_option("--format", args->format, "markdown or csv")
      ->check(CLI::IsMember({"markdown", "csv"}))
      ->capture_default_str();
  compare->add_option("-o,--output", args->output, "Write to FILE instead of stdout");
  compare
      ->add_option("--rate", args->rate,
                   "auto (" + compare::gflops_families() + " GFLOP/s, others GB/s), gflops or gbs")
      ->check(CLI::IsMember({"auto", "gflops", "gbs"}))
      ->capture_default_str();
  compare->add_flag("--no-pool", args->no_pool,
                    "Keep runs of one config, label and host apart (by default they are pooled "
                    "into one side, tested across runs with the round as the unit)");
  compare
      ->add_option("--ignore-param", args->ignore_param,
                   "Join cases as if this tuning parameter were equal, to compare its values: " +
                       join_words(compare::ignorable_params(), "or"))
      ->check(CLI::IsMember(compare::ignorable_params()));
  compare
      ->add_option("--table", args->table,
                   "paper1: the paper's Table 1 (" + paper_view("paper1").cases() +
                       ", N x N) from CPU_RUN [GPU_RUN], markdown; portability: performance "
                       "portability (PP) of each "
                       "variant per problem over the runs' platforms (with --format csv: the P3 "
                       "library's columns)")
      ->check(CLI::IsMember({"paper1", "portability"}));
  // app/cmd_history.cpp
  compare->add_option("--references", args->references,
                      "Check the runs against a references file; exit 5 when a row is below");
  add_db_select_options(
      compare, *args,
      "With --db: KEY=VALUE conditions (run, label, host, backend, device, experiment, since, "
      "case; globs), e.g. --select label='openmp*' since=2026-11-01");

  commands.push_back(
      {compare, Needs::nothing, [args](const MpiEnv*) { return cmd_compare(*args); }});
}

void add_plot_command(CLI::App& app, std::vector<Command>& commands) {
  auto args = std::make_shared<PlotArgs>();
  auto* plot = app.add_subcommand(
      "plot", "Plots of runs or miniapp-bench JSON (rate, speedup, roofline; PNG/SVG/PDF) via "
              "miniapp-plot (matplotlib)");
  add_runs_options(plot, *args, kRunsHelp, "Base of the speedups");
  plot->get_option("runs")->required();
  plot->add_option("-o,--output-dir", args->output_dir, "Directory for the plot files")
      ->capture_default_str();
  plot->add_option("--kind", args->kind, "rate, speedup, roofline or all")
      ->check(CLI::IsMember({"rate", "speedup", "roofline", "all"}))
      ->capture_default_str();
  plot->add_option("--x", args->x_axis,
                   "x axis: size, tile, variant, run, or any other column of the results "
                   "(team_size, seed, ...)")
      ->capture_default_str();
  plot->add_option("--format", args->format, "File formats, comma-separated: png, svg, pdf")
      ->capture_default_str();
  plot->add_option("--dpi", args->dpi, "PNG resolution")->capture_default_str();

  commands.push_back({plot, Needs::nothing, [args](const MpiEnv*) { return cmd_plot(*args); }});
}

} // namespace miniapp
