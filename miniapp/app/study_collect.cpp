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
  std::vector<std::string> inputs, names;
  try {
    history::Database db(db_file, history::Access::read_write);
    for (std::size_t i = 0; i < state.points.size(); ++i) {
      const jobs::PointState& p = state.points[i];
      const std::string what = "  [" + std::to_string(i + 1) + "] " +
                               point_name({p.system_name, p.point.nodes, p.point.ranks_per_node}) +
                               ": ";
      if (!path_exists(p.output_dir + "/results.json")) {
        std::cout << what << "no results yet (" << p.output_dir << ")\n";
        continue;
      }
      int rows = 0;
      for (const auto& r : db.import_path(p.output_dir))
        rows += r.rows;
      compare::Run run = compare::load_run(p.output_dir);
      std::cout << what << rows << " row(s) imported from " << p.output_dir << "\n";
      const std::string label = p.system_name + " " + std::to_string(p.point.nodes) + "x" +
                                std::to_string(p.point.ranks_per_node);
      names.push_back(std::to_string(runs.size() + 1) + "=" + label);
      inputs.push_back(p.output_dir);
      points.push_back({p.system_name, p.point.nodes, p.point.ranks(), run});
      runs.push_back(std::move(run));
    }
  } catch (const history::InputError& e) {
    std::cerr << "miniapp study: " << for_terminal(e.what()) << "\n";
    return kConfigError;
  } catch (const std::exception& e) {
    std::cerr << "miniapp study: " << for_terminal(e.what()) << " (resource: history database "
              << db_file << ")\n";
    return kRuntimeError;
  }
  std::cout << db_file << ": " << runs.size() << " of " << state.points.size()
            << " point(s) imported\n";
  if (runs.empty()) {
    std::cerr << "miniapp study: no point of " << st.name
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
  std::cout << "wrote " << out << "\n";
  return kOk;
}

} // namespace miniapp
