#pragma once
// The subcommands of `miniapp`, each registered by its own app/cmd_*.cpp: its options on the CLI11
// app, what it needs started before it runs, and how it runs. main.cpp builds the app from these,
// parses, starts what the chosen command needs (app/kokkos_launch.hpp, parallel/mpi_env.hpp) and
// runs it through run_command (one error-to-exit-code path, app/commands.hpp).
#include "parallel/mpi_env.hpp"

#include <CLI/CLI.hpp>

#include <functional>
#include <string>
#include <vector>

namespace miniapp {

enum class Needs {
  nothing, // files only: the launcher's rank 0 alone, before MPI or Kokkos (compare, plot, ...)
  kokkos,  // Kokkos, on the launcher's rank 0 alone, MPI not started (jobscript, info, describe)
  ranks,   // every rank: MPI where a launcher started the ranks, then Kokkos (run, validate)
};

struct Command {
  CLI::App* cli = nullptr;
  Needs needs = Needs::nothing;
  std::function<int(const MpiEnv*)> run; // the MpiEnv is null for Needs::nothing
};

// The command line as given: every word (recorded by `run` in results.json) and the words that
// are not Kokkos flags, shell-quoted ("miniapp jobscript ..." in a job script's header).
struct CommandLine {
  std::vector<std::string> argv;
  std::string text;
};

// Help texts of options several commands share (compare, plot, report), said once.
inline constexpr const char* kNameOptionHelp =
    "Name a run in tables and legends: RUN=LABEL, RUN as given or its number from 1 "
    "(repeatable); runs whose labels are equal get their directory's name added";
inline constexpr const char* kWithTransfersHelp =
    "Rates from total time: host-to-device + compute + device-to-host (the end-to-end measure)";

// CONFIG and its --set items, which every command that reads an experiment config takes alike
// (run, validate, jobscript); set_help says what the command does with the items.
inline void add_config_options(CLI::App* command, std::string& config,
                               std::vector<std::string>& overrides, const std::string& set_help) {
  command->add_option("config", config, "Experiment config (YAML)")->required();
  command->add_option("--set", overrides, set_help)->take_all();
}

// The options of the commands that read finished runs (compare, plot, report): the runs, the
// baseline run, names for tables and legends, and the measure. Args has inputs, baseline, names
// and with_transfers.
template <class Args>
void add_runs_options(CLI::App* command, Args& args, const std::string& runs_help,
                      const std::string& baseline_help) {
  command->add_option("runs", args.inputs, runs_help);
  command->add_option("--baseline", args.baseline,
                      baseline_help + ": run number (from 1) or a run directory; default run 1");
  command->add_option("--name", args.names, kNameOptionHelp);
  command->add_flag("--with-transfers", args.with_transfers, kWithTransfersHelp);
}

// --db FILE --select KEY=VALUE...: runs from a history database besides those named (compare,
// report; app/cmd_history.cpp).
template <class Args>
void add_db_select_options(CLI::App* command, Args& args, const std::string& select_help) {
  command->add_option("--db", args.db, "History database to select runs from (--select)");
  command->add_option("--select", args.select, select_help)->take_all();
}

void add_run_command(CLI::App& app, std::vector<Command>& commands, const CommandLine& line);
void add_validate_command(CLI::App& app, std::vector<Command>& commands);
void add_jobscript_command(CLI::App& app, std::vector<Command>& commands, const CommandLine& line);
void add_study_command(CLI::App& app, std::vector<Command>& commands, const CommandLine& line);
void add_info_command(CLI::App& app, std::vector<Command>& commands);
void add_list_command(CLI::App& app, std::vector<Command>& commands);
void add_describe_command(CLI::App& app, std::vector<Command>& commands);
void add_compare_command(CLI::App& app, std::vector<Command>& commands);
void add_db_command(CLI::App& app, std::vector<Command>& commands);
void add_history_command(CLI::App& app, std::vector<Command>& commands);
void add_plot_command(CLI::App& app, std::vector<Command>& commands);
void add_report_command(CLI::App& app, std::vector<Command>& commands);
void add_schema_command(CLI::App& app, std::vector<Command>& commands);

} // namespace miniapp
