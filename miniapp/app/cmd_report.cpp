// `miniapp report RUN... [--db FILE --select KEY=VALUE...] -o DIR`: DIR/index.html, one
// self-contained page (report/html_report.hpp) with the comparison of the runs and their plots,
// made by the plot script as SVG and inlined.
#include "app/commands.hpp"

#include "report/compare.hpp"
#include "report/html_report.hpp"
#include "report/metadata.hpp"
#include "report/results_writer.hpp"
#include "report/run_json.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace miniapp {

namespace {

namespace fs = std::filesystem;

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream os;
  os << in.rdbuf();
  return os.str();
}

std::string first_line(const std::string& s) {
  const auto nl = s.find('\n');
  return s.substr(0, std::min<std::size_t>(nl, 400));
}

// A scratch directory for the plot files, removed when the report is written.
struct TempDir {
  std::string path;
  TempDir() {
    const char* base = std::getenv("TMPDIR");
    std::string templ = std::string(base && *base ? base : "/tmp") + "/miniapp-report-XXXXXX";
    if (::mkdtemp(&templ[0]))
      path = templ;
  }
  ~TempDir() {
    std::error_code ec;
    if (!path.empty())
      fs::remove_all(path, ec);
  }
};

// Runs the plot script for SVG files in `dir`; its stdout (the file names) is dropped, its
// stderr kept in dir/plot.log. Returns the exit status, or -1 (with `why`) when it did not run.
int spawn_plot_script(const std::vector<std::string>& args, const std::string& dir,
                      std::string& why) {
  std::vector<std::string> argv = args;
  std::vector<char*> cargv;
  for (auto& a : argv)
    cargv.push_back(&a[0]);
  cargv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  const std::string log = dir + "/plot.log";
  posix_spawn_file_actions_addopen(&actions, 2, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  pid_t pid = 0;
  const int err = ::posix_spawn(&pid, cargv[0], &actions, nullptr, cargv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (err != 0) {
    why = "cannot start " + argv[0] + ": " + std::strerror(err);
    return -1;
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!WIFEXITED(status)) {
    why = "the plot script was killed by signal " + std::to_string(WTERMSIG(status));
    return -1;
  }
  return WEXITSTATUS(status);
}

// The plots of the runs as inline SVG; a note says why where there are none. The plot script
// reads the runs as compare read them (written to the scratch directory), so a run from a
// results.csv or from the history database is drawn from the same rows as the table.
void make_plots(const std::vector<compare::Run>& runs, std::size_t baseline, bool with_transfers,
                report::ReportOptions& opt) {
  const std::string script = find_plot_script();
  if (script.empty()) {
    opt.plots_note = "No plots: the plot script miniapp-plot was not found (set "
                     "MINIAPP_PLOT_SCRIPT to its path).";
    return;
  }
  TempDir tmp;
  if (tmp.path.empty()) {
    opt.plots_note =
        std::string("No plots: cannot create a temporary directory: ") + std::strerror(errno) + ".";
    return;
  }
  std::vector<std::string> inputs;
  try {
    for (std::size_t i = 0; i < runs.size(); ++i) {
      inputs.push_back(tmp.path + "/run" + std::to_string(i + 1) + ".json");
      write_file_atomically(inputs.back(), compare::to_results_json(runs[i]).dump());
    }
  } catch (const std::exception& e) {
    opt.plots_note = std::string("No plots: ") + e.what();
    return;
  }
  std::vector<std::string> argv = {"/usr/bin/python3", script};
  argv.insert(argv.end(), inputs.begin(), inputs.end());
  argv.insert(argv.end(), {"--output-dir", tmp.path + "/plots", "--kind", "all", "--baseline",
                           std::to_string(baseline + 1), "--format", "svg"});
  if (with_transfers)
    argv.push_back("--with-transfers");
  std::string why;
  const int rc = spawn_plot_script(argv, tmp.path, why);
  const std::string log = first_line(read_file(tmp.path + "/plot.log"));
  if (rc != 0) {
    // The script names what is missing (exit 3 without matplotlib: Debian's python3-matplotlib).
    opt.plots_note =
        "No plots: " + (rc < 0         ? why
                        : !log.empty() ? log
                                       : "the plot script exited " + std::to_string(rc));
    return;
  }
  std::vector<fs::path> files;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(tmp.path + "/plots", ec))
    if (entry.path().extension() == ".svg" && entry.is_regular_file(ec))
      files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  for (const auto& f : files) {
    const std::string svg = report::inline_svg(read_file(f));
    if (svg.empty())
      opt.plots_note += "Plot " + f.stem().string() + " left out: not an inert SVG. ";
    else
      opt.plots.push_back({f.stem().string(), svg});
  }
  if (files.empty())
    opt.plots_note = "No plots: the plot script wrote none.";
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
  try {
    opt.baseline = resolve_baseline(args.baseline, inputs);
    for (const auto& in : inputs)
      runs.push_back(compare::load_run(in));
  } catch (const std::exception& e) {
    std::cerr << "miniapp report: " << e.what() << "\n";
    return kConfigError;
  }
  // issue 17: runs from the history database, after the named ones (as compare --db).
  if (const int code = add_selected_runs("report", args.db, args.select, !inputs.empty(), runs))
    return code;
  try {
    c = compare::compare_runs(runs, opt);
  } catch (const std::exception& e) {
    std::cerr << "miniapp report: " << e.what() << "\n";
    return kConfigError;
  }
  for (const auto& w : c.warnings)
    std::cerr << "miniapp report: warning: " << w << "\n";

  report::ReportOptions ropt;
  ropt.title = args.title;
  ropt.generated = iso8601_now();
  make_plots(runs, opt.baseline, opt.with_transfers, ropt);
  if (!ropt.plots_note.empty())
    std::cerr << "miniapp report: " << ropt.plots_note << "\n";

  const std::string page = report::html_report(c, runs, ropt);
  const std::string out = args.output_dir + "/index.html";
  try {
    std::error_code ec;
    if (!fs::is_directory(args.output_dir, ec) && !fs::create_directories(args.output_dir, ec))
      throw std::runtime_error("cannot create " + args.output_dir + ": " + ec.message());
    write_output_file(out, page, inputs, false); // never onto a run it read
  } catch (const OutputRefused& e) {
    std::cerr << "miniapp report: " << e.what() << "\n";
    return kConfigError;
  } catch (const std::exception& e) {
    std::cerr << "miniapp report: " << e.what() << "\n";
    return kRuntimeError;
  }
  std::cerr << "miniapp report: wrote " << out << " (" << ropt.plots.size() << " plots)\n";
  return kOk;
}

} // namespace miniapp
