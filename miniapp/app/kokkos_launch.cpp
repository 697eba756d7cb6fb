#include "app/kokkos_launch.hpp"

#include "core/compat.hpp"
#include "config/yaml_strict.hpp"

#include <Kokkos_Core.hpp>

#include <cstdio>
#include <cstdlib>
#include <iostream>
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

void apply_thread_binding_policy() {
  setenv("OMP_PROC_BIND", "spread", 0);
  setenv("OMP_PLACES", "threads", 0);
}

KokkosSession::KokkosSession(std::vector<std::string> args) : args_(std::move(args)) {
  for (auto& a : args_)
    ptrs_.push_back(a.data());
  int argc = int(ptrs_.size());
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
