// `miniapp compare` (join runs, rates and ratios, markdown or CSV) and `miniapp plot` (runs the
// shipped matplotlib script). Neither touches Kokkos: they read finished runs.
#include "app/commands.hpp"

#include "report/compare.hpp"
#include "report/results_writer.hpp"

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace miniapp {

namespace {

bool all_digits(const std::string& s) {
  return !s.empty() && s.find_first_not_of("0123456789") == std::string::npos;
}

std::string real_path(const std::string& p) {
  char buf[PATH_MAX];
  return ::realpath(p.c_str(), buf) ? std::string(buf) : p;
}

bool executable(const std::string& p) {
  struct stat st {};
  return ::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode);
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

// Installed: <prefix>/bin/miniapp-plot beside <prefix>/bin/miniapp. Built: the source tree's copy.
std::string find_plot_script() {
  if (const char* env = std::getenv("MINIAPP_PLOT_SCRIPT"))
    return env;
  char self[PATH_MAX];
  const ssize_t len = ::readlink("/proc/self/exe", self, sizeof self - 1);
  if (len > 0) {
    std::string dir(self, std::size_t(len));
    dir = dir.substr(0, dir.find_last_of('/'));
    if (executable(dir + "/miniapp-plot"))
      return dir + "/miniapp-plot";
  }
#ifdef MINIAPP_SOURCE_DIR
  const std::string src = std::string(MINIAPP_SOURCE_DIR) + "/scripts/miniapp-plot.py";
  if (executable(src))
    return src;
#endif
  return "";
}

int cmd_compare(const CompareArgs& args) {
  std::vector<std::string> inputs = args.inputs;
  std::vector<compare::Run> runs;
  compare::Options opt;
  opt.with_transfers = args.with_transfers;
  opt.rate = args.rate == "gflops" ? compare::RateKind::Gflops
             : args.rate == "gbs"  ? compare::RateKind::Gbs
                                   : compare::RateKind::Auto;
  try {
    opt.baseline = resolve_baseline(args.baseline, inputs);
    for (const auto& in : inputs)
      runs.push_back(compare::load_run(in));
  } catch (const std::exception& e) {
    std::cerr << "miniapp compare: " << e.what() << "\n";
    return kConfigError;
  }
  // issue 17 (app/cmd_history.cpp): runs from the history database; a check against references.
  if (const int c = add_selected_runs("compare", args.db, args.select, !args.inputs.empty(), runs))
    return c;
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
    } else {
      const compare::Comparison c = compare::compare_runs(runs, opt);
      text = args.format == "csv" ? compare::to_csv(c) : compare::to_markdown(c);
      warnings = c.warnings;
    }
  } catch (const std::exception& e) {
    std::cerr << "miniapp compare: " << e.what() << "\n";
    return kConfigError;
  }

  for (const auto& w : warnings)
    std::cerr << "miniapp compare: warning: " << w << "\n";
  if (args.output.empty()) {
    std::cout << text;
    return reference_code; // issue 17
  }
  try {
    std::vector<std::string> read = args.inputs; // never onto a run it read
    if (!args.baseline.empty())
      read.push_back(args.baseline);
    write_output_file(args.output, text, read, false);
  } catch (const OutputRefused& e) {
    std::cerr << "miniapp compare: " << e.what() << "\n";
    return kConfigError;
  } catch (const std::exception& e) {
    std::cerr << "miniapp compare: " << e.what() << "\n";
    return kRuntimeError;
  }
  std::cerr << "miniapp compare: wrote " << args.output << "\n";
  return reference_code; // issue 17
}

int cmd_plot(const PlotArgs& args) {
  const std::string script = find_plot_script();
  if (script.empty()) {
    std::cerr << "miniapp plot: cannot find miniapp-plot (looked beside the miniapp binary and in "
                 "the source tree's scripts/); set MINIAPP_PLOT_SCRIPT to its path\n";
    return kRuntimeError;
  }
  std::vector<std::string> argv = {"/usr/bin/python3", script};
  argv.insert(argv.end(), args.inputs.begin(), args.inputs.end());
  argv.insert(argv.end(), {"--output-dir", args.output_dir, "--kind", args.kind});
  if (!args.baseline.empty())
    argv.insert(argv.end(), {"--baseline", args.baseline});
  if (args.with_transfers)
    argv.push_back("--with-transfers");
  argv.insert(argv.end(),
              {"--x", args.x_axis, "--format", args.format, "--dpi", std::to_string(args.dpi)});
  std::vector<char*> cargv;
  for (auto& a : argv)
    cargv.push_back(&a[0]);
  cargv.push_back(nullptr);

  // Spawn and wait rather than exec: MPI was initialised by main and must be finalised.
  pid_t pid = 0;
  const int err = ::posix_spawn(&pid, cargv[0], nullptr, nullptr, cargv.data(), environ);
  if (err != 0) {
    std::cerr << "miniapp plot: cannot start " << argv[0] << " " << script << ": "
              << std::strerror(err) << " (matplotlib needs Debian's python3-matplotlib)\n";
    return kRuntimeError;
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status))
    return WEXITSTATUS(status);
  std::cerr << "miniapp plot: " << script << " was killed by signal " << WTERMSIG(status) << "\n";
  return kRuntimeError;
}

} // namespace miniapp
