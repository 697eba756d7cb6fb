#include "app/kokkos_launch.hpp"

#include "core/compat.hpp"
#include "config/limits.hpp"
#include "config/yaml_strict.hpp"
#include "core/environment.hpp"
#include "results/metadata.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <sstream>
#include <thread>
#include <unistd.h>

namespace miniapp {

std::vector<std::string> translate_kokkos_flags(const std::vector<std::string>& flags,
                                                std::vector<std::string>& notes) {
  std::vector<std::string> out;
  std::vector<std::string> known;
  for (const auto& f : compat::kokkos_flags())
    known.push_back(f.spelling);
  for (const auto& arg : flags) {
    const auto eq = arg.find('=');
    const std::string name = arg.substr(0, eq);
    const std::string value = eq == std::string::npos ? "" : arg.substr(eq + 1);
    const compat::KokkosFlag* flag = nullptr;
    for (const auto& f : compat::kokkos_flags())
      if (name == f.spelling)
        flag = &f;
    if (!flag) {
      const std::string hint = config::closest(name, known);
      throw KokkosFlagError(
          "unknown Kokkos option '" + arg + "'" +
          (hint.empty() ? " (see --kokkos-help)" : " (did you mean '" + hint + "'?)"));
    }
    const bool has_value = eq != std::string::npos;
    if (flag->value == compat::KokkosFlag::none && has_value)
      throw KokkosFlagError("Kokkos option '" + name + "' takes no value, got '" + arg + "'");
    if (flag->value != compat::KokkosFlag::none && (!has_value || value.empty()))
      throw KokkosFlagError("Kokkos option '" + name + "' needs a value: " + name +
                            (flag->value == compat::KokkosFlag::integer ? "=N" : "=VALUE"));
    if (flag->value == compat::KokkosFlag::integer &&
        (value.size() > 6 || value.find_first_not_of("0123456789") != std::string::npos))
      throw KokkosFlagError("Kokkos option '" + name + "' needs a non-negative integer, got '" +
                            value + "'");
    if (*flag->linked == '\0') {
      notes.push_back(flag->note);
      continue;
    }
    out.push_back(std::string(flag->linked) + (has_value ? "=" + value : ""));
  }
  return out;
}

bool kokkos_initialize_args(const std::vector<std::string>& program_and_flags,
                            const std::string& program, std::vector<std::string>& out) {
  out = {program_and_flags.at(0)};
  try {
    std::vector<std::string> notes;
    const std::vector<std::string> given(program_and_flags.begin() + 1, program_and_flags.end());
    for (const auto& flag : translate_kokkos_flags(given, notes))
      out.push_back(flag);
    for (const auto& note : notes)
      std::cerr << program << ": " << note << "\n";
    return true;
  } catch (const KokkosFlagError& e) {
    std::cerr << program << ": " << e.what() << "\n";
    return false;
  }
}

std::string thread_count_problem(const std::vector<std::string>& program_and_flags) {
  const std::uint64_t hardware = std::max(1u, std::thread::hardware_concurrency());
  const std::uint64_t limit = hardware * config::limits::kMaxThreadsPerHardwareThread;
  const auto too_many = [&](const std::string& where, const std::string& value) {
    return where + " asks for " + value + " threads per rank; this machine has " +
           std::to_string(hardware) + " hardware threads and the limit is " +
           std::to_string(config::limits::kMaxThreadsPerHardwareThread) + " per hardware thread (" +
           std::to_string(limit) + "; see docs/config.md)";
  };
  // Digits only, compared as text beyond 18 of them: no value can overflow the check.
  const auto exceeds = [&](const std::string& digits) {
    return digits.size() > 18 || std::stoull(digits) > limit;
  };
  // kokkos_initialize_args checked these first: at most six digits.
  for (const auto& arg : program_and_flags)
    for (const char* flag : {"--kokkos-num-threads=", "--kokkos-threads="})
      if (arg.rfind(flag, 0) == 0) {
        const std::string value = arg.substr(std::string(flag).size());
        if (exceeds(value))
          return too_many(arg, value);
      }
  // Checked even beside the flag: Kokkos 3.4 and libgomp read both and crash on a huge value.
  for (const char* var : {"KOKKOS_NUM_THREADS", "OMP_NUM_THREADS"}) {
    const char* set = env::value(var);
    if (!set || !*set)
      continue;
    // OMP_NUM_THREADS may list a count per nesting level ("8,2"); each is checked.
    std::stringstream list(set);
    for (std::string entry; std::getline(list, entry, ',');) {
      if (entry.empty() || entry.find_first_not_of("0123456789") != std::string::npos)
        return std::string(var) + "='" + utf8_clean(set) +
               "' is not a thread count (a positive integer, or for OMP_NUM_THREADS a "
               "comma-separated list of them)";
      if (exceeds(entry))
        return too_many(std::string(var) + "=" + set, entry);
    }
  }
  return "";
}

void apply_thread_binding_policy() {
  setenv("OMP_PROC_BIND", "spread", 0);
  setenv("OMP_PLACES", "threads", 0);
}

KokkosSession::KokkosSession(std::vector<std::string> args) : args_(std::move(args)) {
  for (auto& a : args_)
    ptrs_.push_back(a.data());
  int argc = int(ptrs_.size());
  compat::export_kokkos_tools_environment();
  // Kokkos prints its warnings with printf: point stdout at stderr while it starts.
  std::fflush(stdout);
  const int saved = dup(STDOUT_FILENO);
  if (saved >= 0)
    dup2(STDERR_FILENO, STDOUT_FILENO);
  Kokkos::initialize(argc, ptrs_.data());
  std::fflush(stdout);
  if (saved >= 0) {
    dup2(saved, STDOUT_FILENO);
    close(saved);
  }
}

KokkosSession::~KokkosSession() {
  Kokkos::finalize();
}

} // namespace miniapp
