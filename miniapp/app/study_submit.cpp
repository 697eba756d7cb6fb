// `miniapp study submit|status|resubmit STUDY`: every point's job script written into the study's
// directory and submitted, then a collect job after them all (afterany); the state file
// (jobs/study_state.hpp) records the job ids; status asks the scheduler (jobs/scheduler.hpp) and
// reads each point's results directory; resubmit submits failed, timed-out, cancelled and
// unsubmitted points' scripts again (their results directory is fixed: the job resumes there).
#include "app/command.hpp"
#include "app/commands.hpp"
#include "app/study_commands.hpp"

#include "config/config.hpp"
#include "core/files.hpp"
#include "core/sinks.hpp"
#include "jobs/jobscript.hpp"
#include "jobs/scheduler.hpp"
#include "jobs/study_state.hpp"
#include "results/run.hpp"

#include <cctype>
#include <iostream>
#include <memory>

namespace miniapp {

namespace {

// The files of the study itself, from the study, never from its state (which anyone may edit):
// the study file the collect job names, and the collect script written and submitted.
void derive_study_files(jobs::StudyState& state, const jobs::Study& st) {
  state.study_file = absolute_path(st.file);
  state.collect_script = study_directory(st) + "/collect.sh";
}

// The collect job: `miniapp study collect STUDY` after every job of `after`, on one core of the
// first system (its partition, account, modules).
std::string submit_collect(jobs::StudyState& state, const jobs::Study& st, const PreparedJob& first,
                           const StudyArgs& args, const std::vector<std::string>& after) {
  const jobs::Scheduler& sched = jobs::site_scheduler();
  derive_study_files(state, st);
  jobs::HelperJob h;
  h.name = "miniapp-" + st.name + "-collect";
  h.time = st.time.empty() ? "00:10:00" : st.time;
  h.directives = jobs::profile_directives(first.sys);
  h.site = jobs::site_lines(first.sys);
  h.miniapp = first.sys.miniapp.empty() ? first.req.miniapp : first.sys.miniapp;
  h.args = {"study", "collect", state.study_file};
  if (!args.db.empty())
    h.args.insert(h.args.end(), {"--db", absolute_path(args.db)});
  h.command = args.command_line;
  write_output_file(state.collect_script, sched.helper_script(h), {state.study_file}, true);
  const std::string id = sched.submit(state.collect_script, after, study_directory(st));
  state.collect_jobs.push_back(id);
  return id;
}

std::string submitted_already(const jobs::Study& st, const std::string& state_file) {
  return st.file + ": the study was submitted already (" + state_file +
         "): follow it with `miniapp study status`, submit failed and unsubmitted points again "
         "with `miniapp study resubmit`, or remove the directory";
}

// The study's lock (jobs/study_state.hpp), or why it cannot be taken: another submit or resubmit
// holds it (one sentence), or the lock file cannot be made (disk).
std::unique_ptr<jobs::StudyLock> lock_study(const std::string& state_file) {
  try {
    return std::make_unique<jobs::StudyLock>(state_file);
  } catch (const std::exception& e) {
    std::cerr << "miniapp study: " << e.what() << std::endl;
    return nullptr;
  }
}

} // namespace

int study_submit(const StudyArgs& args) {
  jobs::Study st;
  std::vector<PlannedPoint> points;
  std::string state_file;
  try {
    st = jobs::load_study(args.study);
    state_file = jobs::study_state_path(st);
    if (path_exists(state_file))
      throw config::ConfigError(submitted_already(st, state_file));
    points = plan_study(st, args, true); // every point checked before anything is submitted
  } catch (const config::ConfigError& e) {
    std::cerr << "miniapp study: " << e.what() << std::endl;
    return kConfigError;
  }
  const jobs::Scheduler& sched = jobs::site_scheduler();
  const std::string dir = study_directory(st);
  try {
    make_dirs(dir + "/results");
  } catch (const std::exception& e) {
    std::cerr << "miniapp study: " << e.what() << " (resource: disk)" << std::endl;
    return kRuntimeError;
  }
  // From here to the last save, alone: another submit started with this one waits for nothing
  // and is refused, or finds the state this one wrote.
  const std::unique_ptr<jobs::StudyLock> lock = lock_study(state_file);
  if (!lock)
    return kRuntimeError;
  if (path_exists(state_file)) {
    std::cerr << "miniapp study: " << submitted_already(st, state_file) << std::endl;
    return kConfigError;
  }
  jobs::StudyState state;
  state.study = st.name;
  derive_study_files(state, st);
  state.scheduler = sched.name();
  state.weak = st.scaling == jobs::Scaling::weak;
  std::vector<std::string> ids;
  try {
    for (std::size_t i = 0; i < points.size(); ++i) {
      const PreparedJob& j = points[i].job;
      jobs::PointState ps{points[i].point, j.sys.name, point_script(st, i), j.req.output_dir, {}};
      write_output_file(ps.script, j.script, {j.req.config, j.sys.file, j.req.miniapp}, true);
      state.points.push_back(ps);
    }
    save_study_state(state_file, state);
    for (std::size_t i = 0; i < state.points.size(); ++i) {
      jobs::PointState& ps = state.points[i];
      ps.jobs.push_back(sched.submit(ps.script, {}, dir));
      ids.push_back(ps.jobs.back());
      save_study_state(state_file, state); // what was submitted is known, whatever comes next
      std::cout << "  [" << i + 1 << "] "
                << point_name({ps.system_name, ps.point.nodes, ps.point.ranks_per_node}) << ": job "
                << ps.jobs.back() << ", " << ps.script << "\n";
    }
    const std::string collect = submit_collect(state, st, points.front().job, args, ids);
    save_study_state(state_file, state);
    std::cout << "  collect: job " << collect << " after " << ids.size() << " job(s), "
              << state.collect_script << "\n";
  } catch (const OutputRefused& e) {
    std::cerr << "miniapp study: " << e.what() << std::endl;
    return kConfigError;
  } catch (const std::exception& e) {
    std::cerr << "miniapp study: " << e.what() << "; " << ids.size() << " of " << points.size()
              << " point(s) submitted, recorded in " << state_file
              << "; submit the rest with `miniapp study resubmit`" << std::endl;
    return kRuntimeError;
  }
  std::cout << "study " << st.name << ": " << points.size() << " point(s) submitted; state in "
            << state_file << "\n";
  return kOk;
}

namespace {

// "complete, 3 of 3 case(s)", "incomplete, 2 of 3 case(s)" or "none yet" for a results directory.
std::string results_summary(const std::string& dir) {
  const std::string file = dir + "/results.json";
  if (!path_exists(file))
    return "none yet";
  try {
    const nlohmann::json doc = compare::read_results_json(file);
    const bool complete = doc.value("complete", false);
    return std::string(complete ? "complete" : "incomplete") + ", " +
           std::to_string(doc.value("cases_completed", 0)) + " of " +
           std::to_string(doc.value("cases_planned", 0)) + " case(s)";
  } catch (const std::exception&) {
    return "unreadable results.json";
  }
}

std::string upper_case(std::string s) {
  for (char& c : s)
    c = char(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

// A point to submit again: its job failed, timed out or was cancelled, or it was never submitted
// (sbatch refused an earlier point of the same `submit`).
bool rerun(const jobs::PointState& p, jobs::JobState s) {
  return p.jobs.empty() || s == jobs::JobState::failed || s == jobs::JobState::timeout ||
         s == jobs::JobState::cancelled;
}

} // namespace

int study_status(const StudyArgs& args, bool resubmit) {
  jobs::Study st;
  jobs::StudyState state;
  std::string state_file;
  std::unique_ptr<jobs::StudyLock> lock; // resubmit: held from the read to the last save
  try {
    st = jobs::load_study(args.study);
    state_file = jobs::study_state_path(st);
    if (resubmit && path_exists(state_file) && !(lock = lock_study(state_file)))
      return kRuntimeError;
    state = jobs::load_study_state(state_file);
  } catch (const config::ConfigError& e) {
    std::cerr << "miniapp study: " << e.what() << std::endl;
    return kConfigError;
  }
  const jobs::Scheduler& sched = jobs::site_scheduler();
  std::vector<std::string> ids;
  for (const auto& p : state.points)
    if (!p.jobs.empty())
      ids.push_back(p.jobs.back());
  if (!state.collect_jobs.empty())
    ids.push_back(state.collect_jobs.back());
  std::map<std::string, jobs::JobStatus> states;
  try {
    states = sched.states(ids);
  } catch (const jobs::SchedulerError& e) {
    std::cerr << "miniapp study: " << e.what() << std::endl;
    return kRuntimeError;
  }
  const auto status_of = [&](const std::vector<std::string>& jobs) {
    return jobs.empty() ? jobs::JobStatus{} : states[jobs.back()];
  };
  const auto state_of = [&](const std::vector<std::string>& jobs) { return status_of(jobs).state; };
  std::map<std::string, int> counts;
  std::vector<std::size_t> again;
  // Every text from the state passes for_terminal: it is a file anyone may have edited.
  std::cout << "study " << for_terminal(st.name) << ": " << state.points.size()
            << " point(s), state in " << for_terminal(state_file) << "\n";
  const auto state_name = [&](const std::vector<std::string>& jobs) {
    return jobs.empty() ? std::string("not submitted") : jobs::job_state_name(state_of(jobs));
  };
  // "(job 12)", or where the job did not simply run or end well, why in the scheduler's words,
  // its state word where it says more than ours: "(job 12: BeginTime, requeued 1x)", "(job 12:
  // NODE_FAIL, NodeDown)", "(job 12: NonZeroExitCode)", "(job 12: requeued 1x)" once done.
  const auto job_of = [&](const std::vector<std::string>& jobs) {
    if (jobs.empty())
      return std::string("(job -)");
    jobs::JobStatus s = status_of(jobs);
    const bool went_well = s.state == jobs::JobState::done || s.state == jobs::JobState::running;
    if (went_well || upper_case(s.word) == upper_case(jobs::job_state_name(s.state)))
      s.word.clear(); // "PENDING" says no more than "pending", "COMPLETED" than "done"
    const std::string why = went_well && s.restarts == 0 ? "" : jobs::job_status_words(s);
    return "(job " + for_terminal(jobs.back()) + (why.empty() ? "" : ": " + for_terminal(why)) +
           ")";
  };
  bool node_trouble = false; // a point failed or was requeued: say which nodes are out of service
  for (std::size_t i = 0; i < state.points.size(); ++i) {
    const jobs::PointState& p = state.points[i];
    ++counts[state_name(p.jobs)];
    if (rerun(p, state_of(p.jobs)))
      again.push_back(i);
    node_trouble = node_trouble || state_of(p.jobs) == jobs::JobState::failed ||
                   status_of(p.jobs).restarts > 0;
    std::cout << "  [" << i + 1 << "] "
              << for_terminal(point_name({p.system_name, p.point.nodes, p.point.ranks_per_node}))
              << ": " << state_name(p.jobs) << " " << job_of(p.jobs) << ", results "
              << results_summary(p.output_dir) << ": " << for_terminal(p.output_dir) << "\n";
  }
  std::cout << "  collect: " << state_name(state.collect_jobs) << " " << job_of(state.collect_jobs)
            << "\n";
  if (node_trouble)
    for (const std::string& n : sched.unavailable_nodes())
      std::cout << "  out of service: " << for_terminal(n) << "\n";
  std::string summary;
  for (const auto& [name, n] : counts)
    summary += (summary.empty() ? "" : ", ") + std::to_string(n) + " " + name;
  std::cout << "points: " << summary << "\n";
  if (!resubmit)
    return kOk;
  if (again.empty() && !state.collect_jobs.empty()) {
    std::cout << "nothing to resubmit: every point was submitted, and none failed, timed out or "
                 "was cancelled\n";
    return kOk;
  }
  std::vector<std::string> new_ids;
  try {
    if (again.empty()) // only the collect job was never submitted: after every point's job
      for (const jobs::PointState& p : state.points)
        new_ids.push_back(p.jobs.back());
    for (std::size_t i : again) {
      jobs::PointState& p = state.points[i];
      p.jobs.push_back(sched.submit(p.script, {}, study_directory(st)));
      new_ids.push_back(p.jobs.back());
      save_study_state(state_file, state);
      std::cout << "  [" << i + 1 << "] resubmitted: job " << p.jobs.back() << "\n";
    }
    // A new collect job after them (the first one ran after the failed jobs already), on the
    // study's first system as at submit time.
    jobs::Study one = st;
    one.systems.resize(1);
    one.nodes.resize(1);
    one.ranks_per_node.resize(1);
    StudyArgs forced = args;
    forced.force = true; // the estimate was checked (or forced) at submit time
    const std::vector<PlannedPoint> first = plan_study(one, forced, false);
    const std::string collect = submit_collect(state, st, first.front().job, args, new_ids);
    save_study_state(state_file, state);
    std::cout << "  collect: job " << collect << " after " << new_ids.size() << " job(s)\n";
  } catch (const config::ConfigError& e) {
    std::cerr << "miniapp study: " << e.what() << std::endl;
    return kConfigError;
  } catch (const std::exception& e) {
    std::cerr << "miniapp study: " << e.what() << std::endl;
    return kRuntimeError;
  }
  return kOk;
}

} // namespace miniapp
