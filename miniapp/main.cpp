// miniapp: Kokkos teaching kernels as validated, reproducible experiments.
// This file only wires the command line to app/*; see README.md for the data flow.
#include "core/version.hpp"
#include "app/command.hpp"
#include "core/text.hpp"
#include "app/commands.hpp"
#include "app/kokkos_launch.hpp"
#include "config/yaml_strict.hpp"
#include "parallel/device_map.hpp"
#include "parallel/mpi_env.hpp"
#include "core/backend_names.hpp"
#include "core/sinks.hpp"
#include "kernels/families.hpp"
#include "run/stop_after_case.hpp"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <iostream>
#include <new>
#include <string>
#include <unistd.h>
#include <vector>

namespace {

// Kokkos' own flags (--kokkos-num-threads=4, --kokkos-device-id=1, ...) go, translated for the
// linked Kokkos (app/kokkos_launch.hpp), to Kokkos::initialize; everything else goes to CLI11.
struct SplitArgs {
  std::vector<std::string> kokkos;
  std::vector<std::string> rest;
};
SplitArgs split_args(int argc, char** argv) {
  SplitArgs s;
  s.kokkos.push_back(argv[0]);
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    (a.rfind("--kokkos-", 0) == 0 ? s.kokkos : s.rest).push_back(a);
  }
  return s;
}

// "miniapp ARGS..." as a shell would take it back, for the header of generated job scripts.
std::string command_line(const std::vector<std::string>& args) {
  std::string out = "miniapp";
  for (const auto& a : args)
    out += " " + miniapp::shell_word(a);
  return out;
}

// Running out of host memory is a resource error (exit 3), whatever the command was doing. The
// commands catch std::exception to report bad input (exit 2), and std::bad_alloc is one; so
// operator new notes each failure here (then throws as it would), and main() turns a command's
// exit 2 after one into 3. A failure nothing can catch (std::bad_alloc thrown while unwinding
// another, e.g. by a JSON document's destructor, or out of a noexcept function) reaches
// std::terminate, which then exits 3 too instead of aborting.
std::atomic<bool> out_of_memory{false};
std::terminate_handler default_terminate = nullptr;

constexpr char kOutOfMemory[] = "miniapp: out of host memory (resource: host memory)\n";

void note_out_of_memory() {
  out_of_memory = true;
  throw std::bad_alloc();
}

[[noreturn]] void terminate_out_of_memory() {
  bool bad_alloc = out_of_memory;
  if (const std::exception_ptr e = std::current_exception()) {
    try {
      std::rethrow_exception(e);
    } catch (const std::bad_alloc&) {
      bad_alloc = true;
    } catch (...) {
    }
  }
  if (bad_alloc) {
    // No allocation here: memory has run out.
    [[maybe_unused]] const auto n = ::write(2, kOutOfMemory, sizeof kOutOfMemory - 1);
    std::_Exit(miniapp::kRuntimeError);
  }
  if (default_terminate)
    default_terminate(); // what it says of any other exception
  std::abort();
}

int run_command_line(int argc, char** argv);

// A job script cannot trust its launcher's exit status alone: Slurm 22.05's srun exits 0 when a
// step's tasks never started ("task 0 launch failed"), and the job said "done (exit 0)" without
// results. So rank 0 writes how the run ended to the file the script names, and the script counts
// a launcher's 0 only with that file saying 0 (jobscripts/parts/wait-and-exit.sh).
void write_exit_status_for_job(int code) {
  const char* path = std::getenv("MINIAPP_EXIT_STATUS_FILE");
  if (!path || !*path)
    return;
  std::ofstream out(path, std::ios::trunc);
  out << code << "\n";
  out.flush();
  if (!out)
    std::cerr << "miniapp: cannot write the exit status to MINIAPP_EXIT_STATUS_FILE '"
              << miniapp::for_terminal(path) << "' (resource: file system)\n";
}

} // namespace

int main(int argc, char** argv) {
  using namespace miniapp;
  std::set_new_handler(note_out_of_memory);
  // First, before MPI and Kokkos start: a batch job forwards SIGUSR1 when its time limit is near
  // (docs/jobs.md, "Resuming"), and a process without the handler would die of it.
  install_stop_after_case_handler();
  default_terminate = std::set_terminate(terminate_out_of_memory);
  try {
    const int code = run_command_line(argc, argv);
    if (code != kConfigError || !out_of_memory)
      return code;
  } catch (const std::bad_alloc&) {
  }
  std::cerr << kOutOfMemory;
  return kRuntimeError;
}

namespace {

using namespace miniapp;

// What `miniapp --help` says of the program.
std::string about() {
  const std::string summa = join(
      family_names_where([](const Family& f) { return f.distribution == Distribution::summa; }),
      ", ");
  return "miniapp: Kokkos teaching kernels (matrix multiply, R = a*A + b*B, tile averages,\n"
         "tile index maps, transposes) run as validated experiments from YAML configs.\n"
         "Kokkos flags of 3.4 and 4.x alike (--kokkos-num-threads=N or --kokkos-threads=N,\n"
         "--kokkos-device-id=N, --kokkos-numa=N, ...) reach the linked Kokkos under the name it\n"
         "knows; an unknown --kokkos-* option is an error. `miniapp list` shows what a config\n"
         "may name; `miniapp help COMMAND` the options of a command.\n"
         "Under mpiexec with several ranks every case is distributed over a 2D process grid\n"
         "(SUMMA for " +
         summa +
         "; one GPU per node-local rank): see docs/mpi.md.\n"
         "Exit codes: 0 ok, 2 config/usage error, 3 runtime/resource error, 4 validation failed,\n"
         "5 a row below its performance reference (--references).";
}

std::vector<Command> build_commands(CLI::App& app, const CommandLine& line) {
  std::vector<Command> commands;
  add_run_command(app, commands, line);
  add_validate_command(app, commands);
  add_jobscript_command(app, commands, line);
  add_study_command(app, commands, line);
  add_info_command(app, commands);
  add_list_command(app, commands);
  add_describe_command(app, commands);
  add_compare_command(app, commands);
  add_db_command(app, commands);
  add_history_command(app, commands);
  add_plot_command(app, commands);
  add_report_command(app, commands);
  add_schema_command(app, commands);
  return commands;
}

// `miniapp help [COMMAND]`, and a suggestion for a mistyped command (CLI11 only says that a
// subcommand is required). Returns the exit code where it answered, else -1.
int help_or_unknown_command(const CLI::App& app, const std::vector<std::string>& words) {
  std::vector<std::string> subcommands;
  for (const auto* sub : app.get_subcommands([](const CLI::App*) { return true; }))
    subcommands.push_back(sub->get_name());
  const auto is_command = [&](const std::string& word) {
    return std::find(subcommands.begin(), subcommands.end(), word) != subcommands.end();
  };
  const auto unknown_command = [&](const std::string& word) {
    const std::string hint = config::closest(word, subcommands);
    std::cerr << "miniapp: unknown command '" << word << "'"
              << (hint.empty() ? "" : " (did you mean '" + hint + "'?)")
              << "; commands: " << join(subcommands, ", ") << " (miniapp help COMMAND)\n";
    return int(kConfigError);
  };
  if (!words.empty() && words[0] == "help") {
    if (words.size() > 1 && !is_command(words[1]))
      return unknown_command(words[1]);
    std::cout << (words.size() > 1 ? app.get_subcommand(words[1])->help() : app.help());
    return kOk;
  }
  if (!words.empty() && words[0][0] != '-' && !is_command(words[0]))
    return unknown_command(words[0]);
  return -1;
}

// Starts what the command needs (Command::needs) and runs it through run_command.
int run_chosen(const Command& command, const SplitArgs& args, std::vector<std::string> kokkos_args,
               int argc, char** argv) {
  // One process's work, unless the ranks work together: under mpiexec/srun only the launcher's
  // rank 0 does it (one job script written and submitted, not one per rank), without MPI.
  if (command.needs != Needs::ranks && MpiEnv::launcher_rank() != 0)
    return kOk;
  const std::string name = command.cli->get_name();
  if (command.needs == Needs::nothing)
    return run_command(name, [&] { return command.run(nullptr); });
  // Before MPI and Kokkos start: an impossible thread count crashes inside Kokkos::initialize.
  if (const std::string problem = thread_count_problem(args.kokkos); !problem.empty()) {
    if (MpiEnv::launcher_rank() == 0) // one sentence, not one per rank
      std::cerr << "miniapp: " << problem << "\n";
    return kConfigError;
  }
  // MPI only where ranks work together, and only when a launcher started them: a singleton
  // MPI_Init costs a daemon and, without ssh/rsh, a page of errors (parallel/mpi_env.hpp).
  MpiEnv mpi(argc, argv, command.needs == Needs::ranks && MpiEnv::launched_by_mpi());
  apply_thread_binding_policy();
  for (const auto& flag : parallel::device_mapping_flags(mpi, kokkos_args))
    kokkos_args.push_back(flag);
  KokkosSession kokkos(kokkos_args);
  const int code = run_command(
      name, [&] { return command.run(&mpi); }, &mpi);
  if (mpi.rank() == 0)
    write_exit_status_for_job(code);
  return code;
}

int run_command_line(int argc, char** argv) {
  const SplitArgs args = split_args(argc, argv);
  CLI::App app{about(), "miniapp"};
  app.set_version_flag("--version",
                       std::string("miniapp ") + version() + " (git " + git_revision() + ")");
  app.require_subcommand(1);
  const std::vector<Command> commands =
      build_commands(app, {{argv, argv + argc}, command_line(args.rest)});
  if (const int code = help_or_unknown_command(app, args.rest); code >= 0)
    return code;
  std::vector<std::string> rest = args.rest;
  std::reverse(rest.begin(), rest.end()); // CLI11 takes the arguments in reverse order
  try {
    app.parse(rest);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? kOk : kConfigError;
  }
  // Checked before any work, whatever the command, so a typo never passes silently.
  std::vector<std::string> kokkos_args;
  if (!kokkos_initialize_args(args.kokkos, "miniapp", kokkos_args))
    return kConfigError;
  for (const auto& command : commands)
    if (*command.cli)
      return run_chosen(command, args, kokkos_args, argc, argv);
  return kConfigError; // require_subcommand(1) makes this unreachable
}

} // namespace
