// `miniapp study collect STUDY`: every point with results imported into the history database
// (history/db.hpp, as `miniapp db import`), then one report of the study: its scaling
// (report/scaling.hpp: time and efficiency against ranks, per system) above the comparison of
// the points, the portability figures and their metadata (report/html_report.hpp). The study's
// collect job runs it after the points' jobs.
#include "app/command.hpp"
#include "app/commands.hpp"
#include "app/study_commands.hpp"

#include "config/config.hpp"
#include "core/files.hpp"
#include "core/sinks.hpp"
#include "jobs/study_state.hpp"
#include "compare/compare.hpp"
#include "history/db.hpp"
#include "report/html_report.hpp"
#include "report/scaling.hpp"

#include <iostream>

namespace miniapp {

int study_collect(const StudyArgs& args) {
  jobs::Study st;
  jobs::StudyState state;
  try {
    st = jobs::load_study(args.study);
    state = jobs::load_study_state(jobs::study_state_path(st));
  } catch (const config::ConfigError& e) {
    std::cerr << "miniapp study: " << e.what() << std::endl;
    return kConfigError;
  }
  const std::string dir = study_directory(st);
  const std::string db_file = args.db.empty() ? dir + "/history.db" : args.db;
  std::vector<report::ScalingPoint> points;
  std::vector<compare::Run> runs;
  std::vector<std::string> inputs, names, lines;
  // Every point's run read and checked against its point before anything is imported: a run of
  // another rank count in a point's directory was reported as the point's ("2 ranks, efficiency
  // 0.50" from a 1-rank run).
  for (std::size_t i = 0; i < state.points.size(); ++i) {
    const jobs::PointState& p = state.points[i];
    const std::string what =
        "  [" + std::to_string(i + 1) + "] " +
        for_terminal(point_name({p.system_name, p.point.nodes, p.point.ranks_per_node})) + ": ";
    if (!path_exists(p.output_dir + "/results.json")) {
      std::cout << what << "no results yet (" << for_terminal(p.output_dir) << ")\n";
      continue;
    }
    compare::Run run;
    try {
      run = compare::load_run(p.output_dir);
    } catch (const std::exception& e) {
      std::cerr << "miniapp study: " << for_terminal(e.what()) << " (resource: point " << i + 1
                << "'s results)\n";
      return kRuntimeError;
    }
    if (run.ranks != p.point.ranks()) {
      std::cerr << "miniapp study: " << for_terminal(p.output_dir) << " holds a run of "
                << run.ranks << " rank(s), and point " << i + 1 << " ("
                << for_terminal(point_name({p.system_name, p.point.nodes, p.point.ranks_per_node}))
                << ") runs " << p.point.ranks()
                << ": not the point's run; nothing imported (remove it and resubmit the point)\n";
      return kConfigError;
    }
    // Each run named by its point in words: "local-cluster 2x1" read as a 2x1 process grid.
    const std::string label = point_name({p.system_name, p.point.nodes, p.point.ranks_per_node});
    names.push_back(std::to_string(runs.size() + 1) + "=" + label);
    inputs.push_back(p.output_dir);
    lines.push_back(what);
    points.push_back({p.system_name, p.point.nodes, p.point.ranks(), run});
    runs.push_back(std::move(run));
  }
  try {
    history::Database db(db_file, history::Access::read_write);
    for (std::size_t i = 0; i < inputs.size(); ++i) {
      int rows = 0;
      for (const auto& r : db.import_path(inputs[i]))
        rows += r.rows;
      std::cout << lines[i] << rows << " row(s) imported from " << for_terminal(inputs[i]) << "\n";
    }
  } catch (const history::InputError& e) {
    std::cerr << "miniapp study: " << for_terminal(e.what()) << "\n";
    return kConfigError;
  } catch (const std::exception& e) {
    std::cerr << "miniapp study: " << for_terminal(e.what()) << " (resource: history database "
              << for_terminal(db_file) << ")\n";
    return kRuntimeError;
  }
  std::cout << for_terminal(db_file) << ": " << runs.size() << " of " << state.points.size()
            << " point(s) imported\n";
  if (runs.empty()) {
    std::cerr << "miniapp study: no point of " << for_terminal(st.name)
              << " has results yet (resource: results); no report written\n";
    return kRuntimeError;
  }
  const std::string out = dir + "/report/index.html";
  try {
    compare::Options opt;
    opt.pool = false; // each point its own side: they differ in ranks, not in repetition
    compare::name_runs(runs, inputs, names, opt.pool);
    const compare::Comparison c = compare::compare_runs(runs, opt);
    report::ReportOptions ropt;
    ropt.title = "miniapp study " + st.name;
    ropt.generated = iso8601_now();
    ropt.scaling_section = report::scaling_section(points, state.weak);
    ropt.plots_note = "The per-case plots of the points: miniapp report with the points' results "
                      "directories.";
    make_dirs(dir + "/report");
    write_output_file(out, report::html_report(c, runs, ropt), inputs, false);
  } catch (const OutputRefused& e) {
    std::cerr << "miniapp study: " << for_terminal(e.what()) << "\n";
    return kConfigError;
  } catch (const std::exception& e) {
    std::cerr << "miniapp study: " << for_terminal(e.what()) << " (resource: report)\n";
    return kRuntimeError;
  }
  std::cout << "wrote " << for_terminal(out) << "\n";
  return kOk;
}

} // namespace miniapp
