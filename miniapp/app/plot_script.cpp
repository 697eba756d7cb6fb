#include "app/plot_script.hpp"
#include "app/commands.hpp"
#include "core/environment.hpp"

#include "results/metadata.hpp"
#include "core/files.hpp"
#include "compare/plot_rows.hpp"
#include "run/stop_signals.hpp"

#include <algorithm>
#include <cerrno>
#include <climits>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <spawn.h>
#include <stdexcept>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace miniapp {

namespace {

namespace fs = std::filesystem;

bool executable(const std::string& p) {
  struct stat st {};
  return ::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

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

// A scratch directory for the script's inputs and plots, removed with what it holds.
struct ScratchDir {
  std::string path;
  ScratchDir() {
    const char* base = env::value("TMPDIR");
    std::string templ = std::string(base && *base ? base : "/tmp") + "/miniapp-plot-XXXXXX";
    if (!::mkdtemp(&templ[0]))
      throw std::runtime_error(std::string("cannot create a temporary directory: ") +
                               std::strerror(errno) + ".");
    path = templ;
  }
  ~ScratchDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
};

// Waits for the child; on a stop signal passes it on, waits for the child to end (a few seconds,
// then SIGKILL) and throws StopSignal, whose unwinding removes the scratch directory.
void wait_for(pid_t pid, int& status) {
  constexpr int kPollMs = 20, kGraceMs = 5000;
  int forwarded = 0, waited_ms = 0;
  for (;;) {
    const pid_t r = ::waitpid(pid, &status, forwarded && waited_ms >= kGraceMs ? 0 : WNOHANG);
    if (r == pid || (r < 0 && errno != EINTR))
      break;
    if (stop_requested() && !forwarded) {
      forwarded = stop_signal() ? stop_signal() : SIGTERM;
      ::kill(pid, forwarded);
    }
    if (forwarded && waited_ms >= kGraceMs)
      ::kill(pid, SIGKILL);
    ::usleep(kPollMs * 1000);
    waited_ms += forwarded ? kPollMs : 0;
  }
  if (forwarded)
    throw StopSignal{forwarded};
}

// A stop signal that came while the handlers were installed but no child ran (writing the
// script's inputs, reading its plots) ends the command as one that came during the wait does.
void stop_if_requested() {
  if (stop_requested())
    throw StopSignal{stop_signal() ? stop_signal() : SIGTERM};
}

} // namespace

// Installed: <prefix>/bin/miniapp-plot beside <prefix>/bin/miniapp. Built: the source tree's copy.
std::string find_plot_script() {
  if (const char* env = env::value("MINIAPP_PLOT_SCRIPT"))
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

int run_plot_script(const std::string& script, const std::vector<std::string>& args,
                    const std::string& log, std::string& why) {
  std::vector<std::string> argv = {"/usr/bin/python3", script};
  argv.insert(argv.end(), args.begin(), args.end());
  std::vector<char*> cargv;
  for (auto& a : argv)
    cargv.push_back(&a[0]);
  cargv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  if (!log.empty()) {
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&actions, 2, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  }
  // A stop signal (SIGTERM, SIGINT, ...) while the script runs is passed on to it (wait_for), so
  // that no script outlives this process and the scratch files go with it.
  const ScopedStopHandlers stop_handlers;
  pid_t pid = 0;
  const int err = ::posix_spawn(&pid, cargv[0], &actions, nullptr, cargv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (err != 0) {
    why = "cannot start " + argv[0] + " " + script + ": " + std::strerror(err);
    return -1;
  }
  int status = 0;
  wait_for(pid, status);
  if (!WIFEXITED(status)) {
    why = script + " was killed by signal " + std::to_string(WTERMSIG(status));
    return -1;
  }
  if (WEXITSTATUS(status) != 0 && !log.empty())
    why = first_line(read_file(log));
  return WEXITSTATUS(status);
}

namespace {

// Writes the plot table of the runs (compare/plot_rows.hpp) into the scratch directory and runs the
// script on it, args after the table; as run_plot_script, and -1 with `why` without a script.
int plot_table_script(const ScratchDir& tmp, const std::vector<compare::Run>& runs,
                      const PlotRequest& request, const std::vector<std::string>& args,
                      const std::string& log, std::string& why) {
  const std::string script = find_plot_script();
  if (script.empty()) {
    why = "cannot find miniapp-plot (looked beside the miniapp binary and in the source tree's "
          "scripts/); set MINIAPP_PLOT_SCRIPT to its path";
    return -1;
  }
  std::vector<std::string> argv = {tmp.path + "/plot-table.json"};
  write_file_atomically(
      argv[0], json_text(compare::plot_table(runs, request.baseline, request.with_transfers)));
  stop_if_requested();
  argv.insert(argv.end(), args.begin(), args.end());
  return run_plot_script(script, argv, log, why);
}

} // namespace

int draw_plots(const std::vector<compare::Run>& runs, const PlotRequest& request,
               const std::vector<std::string>& args, std::string& why) {
  // Installed before the scratch directory exists and kept until it is removed: a stop signal
  // while the table is written (seconds for large runs) must not leave it behind.
  const ScopedStopHandlers stop_handlers;
  const ScratchDir tmp;
  return plot_table_script(tmp, runs, request, args, "", why); // its output is the user's
}

std::vector<PlotFile> plot_runs(const std::vector<compare::Run>& runs, const PlotRequest& request,
                                const std::vector<std::string>& args, const std::string& format) {
  const ScopedStopHandlers stop_handlers; // as draw_plots
  const ScratchDir tmp;
  std::vector<std::string> argv = args;
  argv.insert(argv.end(), {"--output-dir", tmp.path + "/plots", "--format", format});
  std::string why;
  const int rc = plot_table_script(tmp, runs, request, argv, tmp.path + "/plot.log", why);
  // The script names what is missing (exit 3 without matplotlib: Debian's python3-matplotlib).
  if (rc != 0)
    throw std::runtime_error(!why.empty() ? why : "the plot script exited " + std::to_string(rc));
  std::vector<fs::path> paths;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(tmp.path + "/plots", ec))
    if (entry.path().extension() == "." + format && entry.is_regular_file(ec))
      paths.push_back(entry.path());
  std::sort(paths.begin(), paths.end());
  std::vector<PlotFile> files;
  for (const auto& p : paths)
    files.push_back({p.filename().string(), read_file(p)});
  stop_if_requested();
  if (files.empty())
    throw std::runtime_error("the plot script wrote none.");
  return files;
}

} // namespace miniapp
