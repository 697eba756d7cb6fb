#pragma once
// How `miniapp` and `miniapp-bench` start Kokkos, so both run a kernel the same way: one
// thread-binding policy, the --kokkos-* flags of either Kokkos generation translated for the
// linked one (compat::kokkos_flags), and Kokkos' start-up chatter kept off stdout.
#include <stdexcept>
#include <string>
#include <vector>

namespace miniapp {

// An unknown or malformed --kokkos-* option; what() is one sentence, with a did-you-mean.
struct KokkosFlagError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The --kokkos-* arguments rewritten to the names the linked Kokkos parses; flags it has no
// setting for are dropped and their note appended to `notes`. Throws KokkosFlagError.
std::vector<std::string> translate_kokkos_flags(const std::vector<std::string>& flags,
                                                std::vector<std::string>& notes);

// program_and_flags: argv[0] then the --kokkos-* arguments. Fills `out` with argv[0] and the
// translated flags and prints the notes; on a bad flag prints one sentence and returns false
// (the caller exits 2 before any work).
bool kokkos_initialize_args(const std::vector<std::string>& program_and_flags,
                            const std::string& program, std::vector<std::string>& out);

// The thread counts Kokkos and OpenMP are given (--kokkos-num-threads or --kokkos-threads among
// program_and_flags, KOKKOS_NUM_THREADS, every entry of OMP_NUM_THREADS) checked against
// config::limits::kMaxThreadsPerHardwareThread times this machine's hardware threads, before
// Kokkos starts them. "" when they fit, else one sentence (the caller exits 2).
std::string thread_count_problem(const std::vector<std::string>& program_and_flags);

// Kokkos' recommended OpenMP placement (OMP_PROC_BIND=spread, OMP_PLACES=threads) unless the
// user or the job script chose one. Without it Kokkos 3.4 leaves threads unbound (and says so
// on stdout), which measured the same host kernel 3x slower in miniapp-bench than in `run`.
void apply_thread_binding_policy();

// Kokkos::initialize .. finalize around a scope. args[0] is the program name; the rest are
// translated --kokkos-* flags. Whatever Kokkos prints while starting goes to stderr, so stdout
// carries only the program's output (JSON from miniapp-bench, CSV from miniapp).
class KokkosSession {
public:
  explicit KokkosSession(std::vector<std::string> args);
  ~KokkosSession();
  KokkosSession(const KokkosSession&) = delete;
  KokkosSession& operator=(const KokkosSession&) = delete;

private:
  std::vector<std::string> args_;
  std::vector<char*> ptrs_;
};

} // namespace miniapp
