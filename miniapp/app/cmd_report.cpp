// `miniapp report RUN... [--db FILE --select KEY=VALUE...] -o DIR`: DIR/index.html, one
// self-contained page (report/html_report.hpp) with the comparison of the runs and their plots,
// made by the plot script as SVG and inlined.
#include "app/command.hpp"

#include <memory>
#include "app/commands.hpp"
#include "app/plot_script.hpp"
#include "core/sinks.hpp"

#include "compare/compare.hpp"
#include "compare/pooling.hpp"
#include "report/html_report.hpp"
#include "results/metadata.hpp"
#include "core/files.hpp"

#include <filesystem>
#include <iostream>

namespace miniapp {

namespace {

namespace fs = std::filesystem;

// The plots of the runs as inline SVG; a note says why where there are none.
void make_plots(const std::vector<compare::Run>& runs, std::size_t baseline, bool with_transfers,
                report::ReportOptions& opt) {
  std::vector<PlotFile> files;
  try {
    files = plot_runs(runs, PlotRequest{baseline, with_transfers}, {"--kind", "all"}, "svg");
  } catch (const std::exception& e) {
    opt.plots_note = std::string("No plots: ") + e.what();
    return;
  }
  for (const auto& f : files) {
    const std::string stem = f.name.substr(0, f.name.size() - std::string(".svg").size());
    const std::string svg = report::inline_svg(f.content);
    if (svg.empty())
      opt.plots_note += "Plot " + stem + " left out: not an inert SVG. ";
    else
      opt.plots.push_back({stem, svg});
  }
}

} // namespace

int cmd_report(const ReportArgs& args) {
  if (args.output_dir.empty()) {
    std::cerr << "miniapp report: -o DIR must name a directory\n";
    return kConfigError;
  }
  std::vector<std::string> inputs = args.inputs;
  std::vector<compare::Run> runs;
  compare::Options opt;
  opt.with_transfers = args.with_transfers;
  compare::Comparison c;
  // As compare reads them; a baseline not among the runs counts as one named.
  const RunSources from{args.baseline,
                        args.db,
                        args.select,
                        args.names,
                        !args.inputs.empty() || !args.baseline.empty(),
                        opt.pool};
  if (const int code = load_runs("report", from, inputs, runs, opt.baseline))
    return code;
  try {
    c = compare::compare_runs(runs, opt);
  } catch (const std::exception& e) {
    std::cerr << "miniapp report: " << for_terminal(e.what()) << "\n";
    return kConfigError;
  }
  print_warnings("report", c.warnings);

  report::ReportOptions ropt;
  ropt.title = args.title;
  ropt.generated = iso8601_now();
  make_plots(runs, opt.baseline, opt.with_transfers, ropt);
  if (!ropt.plots_note.empty())
    std::cerr << "miniapp report: " << for_terminal(ropt.plots_note) << "\n";

  // The page's run table shows the runs compared: those of one experiment on one machine pooled.
  const std::string page =
      report::html_report(c, compare::pool_runs(runs, opt.baseline).runs, ropt);
  const std::string out = args.output_dir + "/index.html";
  if (const int code = write_user_output("report", [&] {
        std::error_code ec;
        if (!fs::is_directory(args.output_dir, ec) && !fs::create_directories(args.output_dir, ec))
          throw std::runtime_error("cannot create " + args.output_dir + ": " + ec.message());
        write_output_file(out, page, inputs, false); // never onto a run it read
      }))
    return code;
  std::cerr << "miniapp report: wrote " << out << " (" << ropt.plots.size() << " plots)\n";
  return kOk;
}

void add_report_command(CLI::App& app, std::vector<Command>& commands) {
  auto args = std::make_shared<ReportArgs>();
  auto* report = app.add_subcommand(
      "report", "One self-contained HTML page about runs: comparison table, plots (inline SVG), "
                "metadata side by side, warnings, commands that reproduce them");
  add_runs_options(report, *args,
                   "Run directories or results.json/.csv files (or --db with --select)",
                   "Base of the ratios");
  report
      ->add_option("-o,--output-dir", args->output_dir,
                   "Directory for index.html (created if missing)")
      ->required();
  report->add_option("--title", args->title, "Title of the page")->capture_default_str();
  add_db_select_options(report, *args,
                        "With --db: KEY=VALUE conditions, as compare --select (docs/history.md)");
  commands.push_back({report, Needs::nothing, [args](const MpiEnv*) { return cmd_report(*args); }});
}

} // namespace miniapp
