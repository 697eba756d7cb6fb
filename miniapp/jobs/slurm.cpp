// Slurm, the one implementation of the scheduler seam (jobs/scheduler.hpp): sbatch to submit,
// squeue (every state while slurmctld keeps the job: MinJobAge) then sacct (the accounting
// database, where one is configured) to ask states, and the template jobscripts/slurm-collect.sh
// for helper jobs. The job templates openmp.sh and gpu.sh are Slurm's too (jobs/jobscript.cpp).
#include "jobs/scheduler.hpp"

#include "core/sinks.hpp"
#include "jobs/jobscript.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace miniapp::jobs {

namespace {

// The environment as the user started the program, taken before main(). An MPI singleton's
// OMPI_*/PMIX_* variables, passed on through sbatch's default --export=ALL, make an mpirun inside
// the job fail: whatever is set up later stays out of the job.
std::vector<std::string> snapshot_environment() {
  std::vector<std::string> env;
  for (char** e = environ; e && *e; ++e)
    env.emplace_back(*e);
  return env;
}
const std::vector<std::string> g_startup_environment = snapshot_environment();

struct Output {
  bool started = false;
  int status = -1; // exit status; -1 when killed by a signal
  std::string out;
};

// Runs argv[0] (looked up on PATH) in the startup environment and returns its stdout; its stderr
// goes to ours, or nowhere when `quiet`.
Output run_program(std::vector<std::string> argv_s, bool quiet) {
  Output r;
  std::vector<char*> argv, envp;
  for (auto& a : argv_s)
    argv.push_back(a.data());
  argv.push_back(nullptr);
  std::vector<std::string> env = g_startup_environment;
  for (auto& e : env)
    envp.push_back(e.data());
  envp.push_back(nullptr);
  int fd[2];
  if (pipe(fd) != 0)
    return r;
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fd[1], STDOUT_FILENO);
  posix_spawn_file_actions_addclose(&actions, fd[0]);
  posix_spawn_file_actions_addclose(&actions, fd[1]);
  if (quiet)
    posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
  pid_t pid = 0;
  const int rc = posix_spawnp(&pid, argv_s[0].c_str(), &actions, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  close(fd[1]);
  char buf[4096];
  for (ssize_t n; (n = read(fd[0], buf, sizeof buf)) > 0 || (n < 0 && errno == EINTR);)
    if (n > 0 && r.out.size() < (64u << 20)) // a bound: the scheduler's answer is lines of ids
      r.out.append(buf, std::size_t(n));
  close(fd[0]);
  if (rc != 0) {
    if (!quiet)
      std::fprintf(stderr, "miniapp: cannot run %s: %s\n", argv_s[0].c_str(), std::strerror(rc));
    return r;
  }
  r.started = true;
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  r.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

bool plain_id(const std::string& id) {
  return !id.empty() && id.size() < 64 && id.find_first_not_of("0123456789_") == std::string::npos;
}

std::string comma_list(const std::vector<std::string>& ids, char sep) {
  std::string out;
  for (const auto& id : ids)
    out += (out.empty() ? "" : std::string(1, sep)) + id;
  return out;
}

class Slurm : public Scheduler {
public:
  std::string name() const override { return "slurm"; }
  std::string job_id_variable() const override { return "SLURM_JOB_ID"; }
  std::string node_list_variable() const override { return "SLURM_JOB_NODELIST"; }
  std::string variable_prefix() const override { return "SLURM_"; }

  std::string after_any(const std::vector<std::string>& ids) const override {
    return ids.empty() ? "" : "--dependency=afterany:" + comma_list(ids, ':');
  }

  std::string helper_script(const HelperJob& job) const override {
    std::vector<std::string> args;
    for (const auto& a : job.args)
      args.push_back(shell_quote(a));
    const auto token = [](const std::string& v) { return Placeholder(v, Fill::token); };
    const std::map<std::string, Placeholder> values = {
        {"JOB_NAME", token(job_file_name(job.name))},
        {"TIME", token(valid_slurm_time(job.time) ? job.time : "00:10:00")},
        {"COMMAND", Placeholder(comment_text(job.command), Fill::comment)},
        {"MINIAPP", shell_quote(job.miniapp)},
        {"ARGS", comma_list(args, ' ')},
    };
    return render_template(job_template("slurm-collect"), "jobscripts/slurm-collect.sh", values,
                           {{"SBATCH_OPTIONS", job.directives}, {"SITE", job.site}});
  }

  std::string submit(const std::string& script, const std::vector<std::string>& after_any_ids,
                     const std::string& workdir) const override {
    std::vector<std::string> argv = {"sbatch", "--parsable"};
    if (!workdir.empty())
      argv.push_back("--chdir=" + workdir);
    if (!after_any_ids.empty())
      argv.push_back(after_any(after_any_ids));
    argv.push_back(script);
    const Output r = run_program(argv, false);
    const std::string id = r.out.substr(0, r.out.find_first_of(";\n")); // "ID" or "ID;cluster"
    if (!r.started || r.status != 0 || !plain_id(id))
      throw SchedulerError("sbatch did not accept " + script + " (resource: scheduler)");
    return id;
  }

  std::map<std::string, JobStatus> states(const std::vector<std::string>& ids) const override {
    std::map<std::string, JobStatus> out;
    std::vector<std::string> asked;
    for (const auto& id : ids)
      if (plain_id(id)) {
        out[id] = JobStatus{};
        asked.push_back(id);
      }
    if (asked.empty())
      return out;
    // squeue knows every job slurmctld still holds (MinJobAge after its end), finished ones
    // with -t all; an id it no longer knows makes it fail, so each is asked on its own then.
    bool asked_any = false;
    // Each answer fills only the jobs still unknown: sacct, asked for the ones squeue no longer
    // knows, does not overwrite what squeue said of the others.
    const auto take = [&](const Output& r) {
      asked_any = asked_any || r.started;
      for (const auto& [id, status] : parse_slurm_states(r.out))
        if (out.count(id) && out[id].state == JobState::unknown)
          out[id] = status;
    };
    const auto ask = [&](const std::vector<std::string>& batch) {
      const Output r =
          run_program({"squeue", "-h", "-t", "all", "-O",
                       "JobID:|,State:|,RestartCnt:|,Reason:", "-j", comma_list(batch, ',')},
                      true);
      take(r);
      return r.started && r.status == 0;
    };
    if (!ask(asked))
      for (const auto& id : asked)
        ask({id});
    std::vector<std::string> missing;
    for (const auto& [id, status] : out)
      if (status.state == JobState::unknown)
        missing.push_back(id);
    if (!missing.empty()) // ended long ago: the accounting database, where there is one
      take(run_program(
          {"sacct", "-n", "-P", "-X", "-o", "JobID,State", "-j", comma_list(missing, ',')}, true));
    if (!asked_any)
      throw SchedulerError("cannot run squeue or sacct (resource: scheduler)");
    return out;
  }

  std::vector<std::string> unavailable_nodes() const override {
    return parse_slurm_node_reasons(run_program({"sinfo", "-h", "-R", "-o", "%N|%T|%E"}, true).out);
  }
};

} // namespace

const char* job_state_name(JobState s) {
  switch (s) {
  case JobState::pending:
    return "pending";
  case JobState::running:
    return "running";
  case JobState::done:
    return "done";
  case JobState::failed:
    return "failed";
  case JobState::timeout:
    return "timeout";
  case JobState::cancelled:
    return "cancelled";
  case JobState::unknown:
    break;
  }
  return "unknown";
}

JobState slurm_job_state(const std::string& word) {
  const std::string w = word.substr(0, word.find(' ')); // "CANCELLED by 0"
  for (const char* s : {"PENDING", "CONFIGURING", "REQUEUED", "REQUEUE_FED", "REQUEUE_HOLD",
                        "RESV_DEL_HOLD", "SPECIAL_EXIT", "RESIZING"})
    if (w == s)
      return JobState::pending;
  for (const char* s : {"RUNNING", "COMPLETING", "STAGE_OUT", "SUSPENDED", "SIGNALING"})
    if (w == s)
      return JobState::running;
  if (w == "COMPLETED")
    return JobState::done;
  if (w == "TIMEOUT" || w == "DEADLINE")
    return JobState::timeout;
  if (w == "CANCELLED" || w == "REVOKED")
    return JobState::cancelled;
  for (const char* s : {"FAILED", "NODE_FAIL", "BOOT_FAIL", "OUT_OF_MEMORY", "PREEMPTED"})
    if (w == s)
      return JobState::failed;
  return JobState::unknown;
}

namespace {

// A text of the scheduler's as it may be shown: printable ASCII only (control characters and
// anything else dropped), spaces at either end trimmed, at most kMaxSchedulerText characters.
std::string scheduler_text(const std::string& s) {
  std::string out;
  for (const char c : s)
    if (c >= ' ' && c <= '~' && out.size() < kMaxSchedulerText + 1)
      out += c;
  const auto first = out.find_first_not_of(' ');
  out = first == std::string::npos ? "" : out.substr(first, out.find_last_not_of(' ') + 1 - first);
  if (out.size() > kMaxSchedulerText)
    out = out.substr(0, kMaxSchedulerText - 3) + "...";
  return out;
}

// The lines of `text`, each split at its first `fields - 1` bars (the last field keeps any
// further bar: a reason is free text); lines with fewer bars than `min_bars` left out.
std::vector<std::vector<std::string>> bar_lines(const std::string& text, std::size_t fields,
                                                std::size_t min_bars) {
  std::vector<std::vector<std::string>> out;
  std::size_t from = 0;
  while (from < text.size()) {
    std::size_t end = text.find('\n', from);
    if (end == std::string::npos)
      end = text.size();
    std::string line = text.substr(from, end - from);
    from = end + 1;
    std::vector<std::string> parts;
    for (std::size_t bar; parts.size() + 1 < fields && (bar = line.find('|')) != std::string::npos;
         line.erase(0, bar + 1))
      parts.push_back(line.substr(0, bar));
    parts.push_back(line);
    if (parts.size() > min_bars)
      out.push_back(parts);
  }
  return out;
}

} // namespace

std::string job_status_words(const JobStatus& s) {
  std::string out = s.word;
  const auto add = [&out](const std::string& w) { out += (out.empty() ? "" : ", ") + w; };
  if (!s.reason.empty())
    add(s.reason);
  if (s.restarts > 0)
    add("requeued " + std::to_string(s.restarts) + "x");
  return out;
}

std::map<std::string, JobStatus> parse_slurm_states(const std::string& text) {
  std::map<std::string, JobStatus> out;
  for (const auto& f : bar_lines(text, 4, 1)) {
    if (!plain_id(f[0])) // job steps (12.batch, 12.0) are not jobs
      continue;
    JobStatus& s = out[f[0]];
    s.state = slurm_job_state(f[1]);
    s.word = scheduler_text(f[1]);
    if (f.size() == 4) { // squeue's: restarts and reason too
      const std::string n = scheduler_text(f[2]);
      if (!n.empty() && n.size() <= 6 && n.find_first_not_of("0123456789") == std::string::npos)
        s.restarts = std::stoi(n);
      s.reason = scheduler_text(f[3]);
      if (s.reason == "None")
        s.reason.clear();
    }
  }
  return out;
}

std::vector<std::string> parse_slurm_node_reasons(const std::string& text) {
  std::vector<std::string> out;
  for (const auto& f : bar_lines(text, 3, 2)) {
    const std::string nodes = scheduler_text(f[0]), state = scheduler_text(f[1]);
    if (!nodes.empty() && out.size() < 64) // a bound: each is a line of `study status`
      out.push_back(nodes + " (" + state + ": " + scheduler_text(f[2]) + ")");
  }
  return out;
}

const Scheduler& site_scheduler() {
  static const Slurm slurm;
  return slurm;
}

} // namespace miniapp::jobs
