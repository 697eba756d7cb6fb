#pragma once
// The subcommands of `miniapp`. Each returns the process exit code:
// 0 success, 2 config or usage error (before any work), 3 runtime or resource error,
// 4 validation failed (the rows are marked invalid), 5 a row below its performance reference
// (--references).
#include "parallel/mpi_env.hpp"
#include "plan/plan.hpp"
#include "results/run.hpp"
#include "results/metadata.hpp"
#include "run/exit_code.hpp"

#include <functional>
#include <string>
#include <vector>

namespace miniapp {

struct RunArgs {
  std::string config;
  std::vector<std::string> overrides;
  std::string output_dir; // exact run directory (must not exist); empty = under output.directory
  std::string resume;     // --resume DIR: an earlier run's results directory (app/run_resume.hpp)
  bool resume_given = false; // --resume was on the command line (`--resume ''` is refused)
  bool print = false;
  bool quiet = false;
  int ranks = 0;     // validate --ranks N: check the plan for N ranks; 0 = the ranks running
  std::string label; // --label: names the run in compare tables and plots
  int rounds = 1;    // --rounds N: the case list N times in turn (run/rounds.hpp)
  std::vector<std::string> argv; // the whole command line, recorded in results.json
  std::string references;        // --references FILE (app/run_extras.hpp)
  std::string db;                // --db FILE, the history database
  // validate --rates key=value...: the rates SUMMA's model needs (parallel/summa_model.hpp)
  std::vector<std::string> rates;
};

inline LaunchInfo launch_info(const RunArgs& a) {
  return {a.argv, a.overrides, a.config, a.label};
}

struct JobscriptArgs {
  std::string config;
  std::string system; // a profile path or a name under jobscripts/systems
  std::vector<std::string> overrides;
  int nodes = 1;
  int ranks_per_node = 0;  // 0 = the profile's choice
  std::string time;        // empty = the profile's
  std::string output_file; // -o; empty = stdout (or a file named after the job with --submit)
  std::string output_dir;  // the run's exact directory (%j = job id)
  std::string results_dir; // base directory for run directories
  std::string miniapp;     // program path in the job; empty = this program
  bool submit = false;
  bool exclusive = false;    // #SBATCH --exclusive
  std::string hint;          // #SBATCH --hint=VALUE (nomultithread: one thread per core)
  std::string template_file; // a site's own job template
  std::string command_line;
  bool force = false; // --force: a --time below the estimate is written anyway
  std::string db;     // --db: the history database the estimate reads
  int rounds = 1;     // the run's --rounds (a study's `rounds`): in the script and the estimate
};

struct CompareArgs {
  std::vector<std::string> inputs; // run directories or results.json / results.csv files
  std::string baseline;            // "" = run 1; a run number from 1, or a run directory / file
  std::string format = "markdown"; // markdown | csv
  std::string output;              // "" = stdout
  std::string rate = "auto";       // auto (matmul GFLOP/s, others GB/s) | gflops | gbs
  std::string table;               // "" or "paper1" (the paper's Table 1: CPU_RUN [GPU_RUN])
  bool with_transfers = false;     // rates from total time (h2d + compute + d2h)
  std::string references;          // check the runs against a references file
  std::string db;                  // add the runs --select picks from this database
  std::vector<std::string> select; // KEY=VALUE conditions (history::add_condition)
  std::vector<std::string> names;  // RUN=LABEL (compare::name_runs)
  bool no_pool = false;            // each run its own side (compare/pooling.hpp)
  std::string ignore_param;        // join case ids as if this tuning parameter were equal
};

// `miniapp db import|rebuild` and `miniapp history` (app/cmd_db.cpp, cmd_history.cpp).
struct DbArgs {
  std::string action; // import | rebuild
  std::string db;
  std::vector<std::string> runs;
};
struct HistoryArgs {
  std::string db;
  std::vector<std::string> select; // KEY=VALUE conditions, as compare --select
  std::string case_pattern, label, since;
  std::string format = "table"; // table | csv
  std::string plot;             // --plot FILE (.png, .svg, .pdf): the rates per run as a figure
};

struct PlotArgs {
  std::vector<std::string> inputs;
  std::string output_dir = ".";
  std::string kind = "all"; // rate | speedup | roofline | all
  std::string baseline;
  bool with_transfers = false;
  std::string x_axis = "size"; // size | tile | variant | run | any column of the plot table
  std::string format = "png";  // comma-separated: png, svg, pdf
  int dpi = 200;
  std::vector<std::string> names; // RUN=LABEL (compare::name_runs)
};

struct ReportArgs {
  std::vector<std::string> inputs; // run directories or results.json / results.csv files
  std::string baseline;            // as CompareArgs::baseline
  std::string output_dir;          // -o: the report is DIR/index.html
  std::string title = "miniapp report";
  bool with_transfers = false;
  std::string db;                  // add the runs --select picks from this database
  std::vector<std::string> select; // KEY=VALUE conditions (history::add_condition)
  std::vector<std::string> names;  // RUN=LABEL (compare::name_runs)
};

struct ListArgs {
  std::string what = "all"; // all or one of list_sections()
  bool names = false;       // bare names, one per line (shell completion)
};
const std::vector<std::string>& list_sections();

// Every command runs through this (main.cpp): an exception its own handlers did not take becomes
// one sentence on stderr, "miniapp COMMAND: ...", and an exit code: 2 for a config error, 3 for
// a file system error (std::filesystem), running out of memory or any other runtime error. Never
// std::terminate's abort. With several `ranks`, which may wait for this one in a collective,
// every rank is ended with that code (Communicator::abort_all) rather than left to hang.
int run_command(const std::string& command, const std::function<int()>& body,
                const Communicator* ranks = nullptr);
// Writing a file the user named (write_output_file, core/files.hpp) inside `write`: 0 when it was
// written; else one sentence "miniapp COMMAND: ..." on stderr and 2 when the file was refused (an
// input, a symbolic link: a usage error) or 3 when it could not be written.
int write_user_output(const std::string& command, const std::function<void()>& write);
// Each warning about the runs a command read, one line "miniapp COMMAND: warning: ..." on stderr,
// shown as text (they quote labels and names from the files).
void print_warnings(const std::string& command, const std::vector<std::string>& warnings);
// Thrown when a stop signal ends a command while a child process of it ran (the plot script):
// not a std::exception, so no command's own handler takes it; its unwinding removes the command's
// temporary files, and run_command then says so and returns 3, as an interrupted run does.
struct StopSignal {
  int signal;
};

int cmd_run(const RunArgs& args, const MpiEnv& mpi);
int cmd_validate(const RunArgs& args, const MpiEnv& mpi);
int cmd_info(const MpiEnv& mpi);
int cmd_jobscript(const JobscriptArgs& args, const MpiEnv& mpi);
int cmd_describe(std::int64_t rows, std::int64_t cols, const std::string& tile,
                 const std::string& backend, const std::string& color);
int cmd_list(const ListArgs& args);
int cmd_compare(const CompareArgs& args);
int cmd_plot(const PlotArgs& args); // runs scripts/miniapp-plot.py (installed as bin/miniapp-plot)
int cmd_report(const ReportArgs& args);

// Shared by compare, plot and report (app/cmd_compare.cpp).
// --baseline: a run number from 1, or a run (inserted as run 1 when not among `inputs`); the
// index into `inputs`. Throws std::invalid_argument for a number out of range.
std::size_t resolve_baseline(const std::string& baseline, std::vector<std::string>& inputs);
// The runs compare and report read: the baseline resolved (its index into `inputs`, which may
// grow by it), each of `inputs` loaded, then the runs --db/--select picks (add_selected_runs;
// named_runs: the user named runs), all named (--name; pool: runs of one experiment share one).
// 0, or 2 with one sentence "miniapp COMMAND: ..." on stderr.
struct RunSources {
  std::string baseline, db;
  std::vector<std::string> select, names;
  bool named_runs = false, pool = true;
};
int load_runs(const std::string& command, const RunSources& from, std::vector<std::string>& inputs,
              std::vector<compare::Run>& runs, std::size_t& baseline_index);
int cmd_db(const DbArgs& args);
int cmd_history(const HistoryArgs& args);
// For compare and report: the runs --db FILE --select KEY=VALUE... picks, appended to
// runs (0; 2 with the reason on stderr, "miniapp COMMAND: ...", also when neither runs are named
// nor --db given); --references checked (0, 2, 5).
int add_selected_runs(const std::string& command, const std::string& db,
                      const std::vector<std::string>& select, bool named_runs,
                      std::vector<compare::Run>& runs);
int check_compare_references(const CompareArgs& args, const std::vector<compare::Run>& runs);

} // namespace miniapp
