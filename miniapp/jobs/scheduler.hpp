#pragma once
// The seam between miniapp and a batch scheduler: the job-id and node-list variables a job sees,
// the dependency syntax, the script of a one-core helper job (a study's collect job), submitting a
// script and asking the states of jobs. Slurm is the one implementation (jobs/slurm.cpp, with the
// templates jobscripts/openmp.sh, gpu.sh and slurm-collect.sh); another scheduler (Flux, PBS) is
// one more implementation file and its templates (docs/jobs.md, "Other schedulers").
#include <cstddef>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace miniapp::jobs {

// A job's state as the study commands tell them apart (done = ended with exit 0).
enum class JobState { pending, running, done, failed, timeout, cancelled, unknown };
const char* job_state_name(JobState s);

// What the scheduler says of one job: its state as the study tells states apart, and in the
// scheduler's own words (its output is input: each text at most kMaxSchedulerText characters of
// printable ASCII) the state, the reason for it, and how often the scheduler requeued the job.
struct JobStatus {
  JobState state = JobState::unknown;
  std::string word;   // "NODE_FAIL", "PENDING", "CANCELLED by 0"; "" where not known
  std::string reason; // "BeginTime", "NodeDown", "NonZeroExitCode"; "" for none
  int restarts = 0;   // requeued this many times (a node failed under it, or `scontrol requeue`)
};
constexpr std::size_t kMaxSchedulerText = 160;
// "PENDING, BeginTime, requeued 1x": the words above, those there are.
std::string job_status_words(const JobStatus& s);

// The scheduler refused or could not be reached: a resource error (exit 3).
struct SchedulerError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// A job that runs one miniapp command on one core, e.g. `miniapp study collect STUDY`.
struct HelperJob {
  std::string name;                    // job name (a plain word)
  std::string time;                    // time limit in the scheduler's format
  std::vector<std::string> directives; // the profile's partition, account, qos (directive lines)
  std::vector<std::string> site;       // the profile's site section (modules, environment, setup)
  std::string miniapp;                 // the program
  std::vector<std::string> args;       // its arguments
  std::string command;                 // the command that generated it, for the header
};

class Scheduler {
public:
  virtual ~Scheduler() = default;
  virtual std::string name() const = 0;
  // The environment variables of a running job: its id, its nodes, and the prefix of them all
  // (recorded in results.json's metadata).
  virtual std::string job_id_variable() const = 0;
  virtual std::string node_list_variable() const = 0;
  virtual std::string variable_prefix() const = 0;
  // The submit option that starts a job after every one of `ids` ended, however it ended.
  virtual std::string after_any(const std::vector<std::string>& ids) const = 0;
  virtual std::string helper_script(const HelperJob& job) const = 0;
  // Submits `script` (run in `workdir` when not empty) after `after_any_ids`; the job id.
  // Throws SchedulerError.
  virtual std::string submit(const std::string& script,
                             const std::vector<std::string>& after_any_ids,
                             const std::string& workdir) const = 0;
  // The status of each job id (unknown where the scheduler no longer knows it). Throws
  // SchedulerError when the scheduler cannot be asked at all.
  virtual std::map<std::string, JobStatus> states(const std::vector<std::string>& ids) const = 0;
  // The nodes the scheduler holds out of service, "NODES (STATE: REASON)" each (why a job failed
  // or was requeued); none where it cannot be asked.
  virtual std::vector<std::string> unavailable_nodes() const = 0;
};

// The scheduler generated scripts are for: Slurm.
const Scheduler& site_scheduler();

// Slurm's state words (squeue State, sacct State: "CANCELLED by 0" included) as a JobState; the
// "ID|STATE|RESTARTS|REASON" lines of `squeue -O JobID:|,State:|,RestartCnt:|,Reason:` and the
// "ID|STATE" lines of `sacct -P -o JobID,State` as a map (job steps such as 12.batch are left
// out; "None" is no reason); the "NODES|STATE|REASON" lines of `sinfo -R -o %N|%T|%E` as
// "NODES (STATE: REASON)". Exposed for the unit tests.
JobState slurm_job_state(const std::string& word);
std::map<std::string, JobStatus> parse_slurm_states(const std::string& text);
std::vector<std::string> parse_slurm_node_reasons(const std::string& text);

} // namespace miniapp::jobs
