// `miniapp history` (a case's figure across runs, machines and time, from the history database)
// and what `miniapp compare` and `miniapp report` take from issue 17: runs selected from the
// database (--db --select) and a check against references (--references). None touches Kokkos.
#include "app/command.hpp"

#include <memory>
#include "app/commands.hpp"
#include "core/sinks.hpp"
#include "core/text.hpp"
#include "app/plot_script.hpp"

#include "config/yaml_strict.hpp"
#include "kernels/paper_views.hpp"
#include "history/db.hpp"
#include "results/references.hpp"
#include "core/files.hpp"

#include <cctype>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <map>
#include <sstream>

namespace miniapp {

namespace {

std::string history_csv(const std::vector<history::Point>& points) {
  std::ostringstream os;
  os << "case,start_time,run_id,label,host,device,backend,rate,unit,pct_of_ceiling,status,valid,"
        "marks\n";
  for (const auto& p : points) {
    const std::vector<std::string> fields = {p.case_id,
                                             p.start_time,
                                             p.run_id,
                                             p.label,
                                             p.host,
                                             p.device,
                                             p.backend,
                                             fmt("%.6g", p.rate),
                                             p.unit,
                                             p.pct_of_ceiling >= 0 ? fmt("%.4g", p.pct_of_ceiling)
                                                                   : "",
                                             p.status,
                                             p.valid,
                                             marks_csv(p.marks)};
    for (std::size_t i = 0; i < fields.size(); ++i)
      os << (i ? "," : "") << for_csv_cell(fields[i]);
    os << "\n";
  }
  return os.str();
}

// One block per case, its runs oldest first: when, the figure, and on what.
std::string history_table(const std::vector<history::Point>& points) {
  std::ostringstream os;
  std::string current;
  Marks shown;
  for (const auto& p : points) {
    if (p.case_id != current) {
      current = p.case_id;
      os << (os.tellp() > 0 ? "\n" : "") << for_terminal(current) << " (" << for_terminal(p.unit)
         << ")\n";
      char head[160];
      std::snprintf(head, sizeof head, "  %-20s %12s %10s %-8s %s\n", "started",
                    for_terminal(p.unit).c_str(), "% ceiling", "status", "run (label, id)");
      os << head;
    }
    char line[160];
    std::snprintf(line, sizeof line, "  %-20s %12s %10s %-8s ", for_terminal(p.start_time).c_str(),
                  fmt(p.rate >= 100 ? "%.1f" : "%.3g", p.rate).c_str(),
                  p.pct_of_ceiling >= 0 ? fmt("%.1f", p.pct_of_ceiling).c_str() : "-",
                  for_terminal(p.status).c_str());
    os << line << for_terminal(p.label) << " [" << for_terminal(p.run_id) << "]"
       << marks_text(p.marks) << "\n";
    shown |= p.marks;
  }
  if (shown.any())
    os << "\n" << marks_legend(shown) << "\n";
  return os.str();
}

// --plot FILE's format, from its name: png, svg or pdf; "" for any other name.
std::string plot_format(const std::string& file) {
  const auto dot = file.find_last_of("./");
  if (dot == std::string::npos || file[dot] != '.')
    return "";
  std::string ext = file.substr(dot + 1);
  for (auto& ch : ext)
    ch = char(std::tolower(static_cast<unsigned char>(ch)));
  return ext == "png" || ext == "svg" || ext == "pdf" ? ext : "";
}

// --plot FILE: each selected case's rate in each run, the runs oldest first along the x axis (the
// plot script's rate plot with --x run), one file per kernel family: FILE itself for one family,
// FILE's name with -FAMILY before the extension for several.
int plot_history(const HistoryArgs& args, const history::Filter& filter) {
  const std::string format = plot_format(args.plot);
  std::vector<compare::Run> runs;
  try {
    history::Database db(args.db, history::Access::read_only);
    runs = history::select_runs(db, filter);
  } catch (const std::exception& e) {
    std::cerr << "miniapp history: " << for_terminal(e.what()) << "\n";
    return kConfigError;
  }
  // The runs of one machine share their label: the start time tells them apart on the x axis.
  for (auto& run : runs) {
    const auto& md = run.metadata;
    const auto start = md.is_object() ? md.find("start_time") : md.end();
    if (start == md.end() || !start->is_string())
      continue;
    const std::string label = start->get<std::string>().substr(0, 16) + " " + run.label();
    run.given_label = label;
    run.metadata["label"] = label;
  }
  std::vector<PlotFile> files;
  try {
    files = plot_runs(runs, PlotRequest{}, {"--kind", "rate", "--x", "run"}, format);
  } catch (const std::exception& e) {
    std::cerr << "miniapp history: no plot: " << for_terminal(e.what()) << "\n";
    return kRuntimeError;
  }
  for (const auto& f : files) {
    std::string out = args.plot;
    if (files.size() > 1) { // "rate-FAMILY.EXT" -> FILE-FAMILY.EXT
      const std::string family = f.name.substr(
          std::strlen("rate-"), f.name.size() - std::strlen("rate-.") - format.size());
      const auto dot = out.find_last_of('.');
      out = out.substr(0, dot) + "-" + family + out.substr(dot);
    }
    if (const int code = write_user_output(
            "history", [&] { write_output_file(out, f.content, {args.db}, false); }))
      return code;
    std::cerr << "miniapp history: wrote " << out << "\n";
  }
  return kOk;
}

} // namespace

int cmd_history(const HistoryArgs& args) {
  if (!args.plot.empty() && plot_format(args.plot).empty()) {
    std::cerr << "miniapp history: --plot " << args.plot
              << ": name a .png, .svg or .pdf file (its format)\n";
    return kConfigError;
  }
  history::Filter filter;
  try {
    for (const auto& c : args.select)
      history::add_condition(filter, c);
    if (!args.case_pattern.empty())
      history::add_condition(filter, "case=" + args.case_pattern);
    if (!args.label.empty())
      history::add_condition(filter, "label=" + args.label);
    if (!args.since.empty())
      history::add_condition(filter, "since=" + args.since);
  } catch (const std::invalid_argument& e) {
    std::cerr << "miniapp history: " << for_terminal(e.what()) << "\n";
    return kConfigError;
  }
  std::vector<history::Point> points;
  try {
    history::Database db(args.db, history::Access::read_only);
    points = db.history(filter);
  } catch (const std::exception& e) {
    std::cerr << "miniapp history: " << for_terminal(e.what()) << "\n";
    return kConfigError;
  }
  if (points.empty()) {
    std::cerr << "miniapp history: no rows in " << args.db << " match\n";
    return kOk;
  }
  std::cout << (args.format == "csv" ? history_csv(points) : history_table(points));
  return args.plot.empty() ? kOk : plot_history(args, filter);
}

int add_selected_runs(const std::string& command, const std::string& db,
                      const std::vector<std::string>& select, bool named_runs,
                      std::vector<compare::Run>& runs) {
  if (db.empty()) {
    if (!select.empty()) {
      std::cerr << "miniapp " << command
                << ": --select picks runs from a history database: add --db FILE\n";
      return kConfigError;
    }
    if (!named_runs) {
      std::cerr << "miniapp " << command
                << ": name the runs (RUN...) or select them (--db FILE --select KEY=VALUE)\n";
      return kConfigError;
    }
    return kOk;
  }
  history::Filter filter;
  try {
    for (const auto& c : select)
      history::add_condition(filter, c);
    history::Database database(db, history::Access::read_only);
    const auto selected = history::select_runs(database, filter);
    if (selected.empty()) {
      std::cerr << "miniapp " << command << ": no run in " << db << " matches the selection\n";
      return kConfigError;
    }
    runs.insert(runs.end(), selected.begin(), selected.end());
  } catch (const std::exception& e) {
    std::cerr << "miniapp " << command << ": " << for_terminal(e.what()) << "\n";
    return kConfigError;
  }
  return kOk;
}

int check_compare_references(const CompareArgs& args, const std::vector<compare::Run>& runs) {
  if (args.references.empty())
    return kOk;
  references::References refs;
  try {
    refs = references::load_references(args.references);
  } catch (const config::ConfigError& e) {
    std::cerr << for_terminal(e.what()) << std::endl;
    return kConfigError;
  }
  int below = 0, met = 0;
  for (std::size_t i = 0; i < runs.size(); ++i)
    for (const auto& row : runs[i].rows) {
      const references::Check c = references::check(refs, runs[i], row);
      met += c.status == references::Status::met;
      if (c.status != references::Status::below)
        continue;
      ++below;
      std::cerr << "miniapp compare: BELOW run " << i + 1 << " (" << for_terminal(runs[i].label())
                << "): " << for_terminal(references::describe(c, references::case_id(row))) << "\n";
    }
  std::cerr << "miniapp compare: references (" << refs.file << "): " << met << " row(s) met, "
            << below << " below\n";
  return below > 0 ? kBelowReference : kOk;
}

void add_history_command(CLI::App& app, std::vector<Command>& commands) {
  auto args = std::make_shared<HistoryArgs>();
  auto* history = app.add_subcommand(
      "history", "A case's figure across the runs, machines and time of a history database");
  history
      ->add_option("--db", args->db,
                   "The SQLite database file (opened read-only: nothing in it changes)")
      ->required();
  history->add_option("--case", args->case_pattern,
                      "Glob over case ids, e.g. '" + paper_view("paper1").cases() + "/*'");
  history->add_option("--label", args->label, "Glob over run labels");
  history->add_option("--since", args->since,
                      "Runs started on or after this date (YYYY-MM-DD[THH:MM[:SS]Z])");
  history
      ->add_option("--select", args->select,
                   "More KEY=VALUE conditions (run, host, backend, device, experiment)")
      ->take_all();
  history->add_option("--format", args->format, "table or csv")
      ->check(CLI::IsMember({"table", "csv"}))
      ->capture_default_str();
  history->add_option("--plot", args->plot,
                      "Also draw the rates per run into FILE (.png, .svg or .pdf; one file per "
                      "kernel family, FILE-FAMILY.EXT, when several)");

  commands.push_back(
      {history, Needs::nothing, [args](const MpiEnv*) { return cmd_history(*args); }});
}

} // namespace miniapp
