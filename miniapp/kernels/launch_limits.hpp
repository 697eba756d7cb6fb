#pragma once
// Limits every team kernel checks before launch: a request that cannot fit is an error naming the
// requested and the maximum values, never a Kokkos abort.
#include "core/compat.hpp"

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <stdexcept>
#include <string>

namespace miniapp::kernels {

struct LaunchError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The team size of this thread's latest team launch (0: none since the caller reset it). The size
// is fitted inside each launch function (below), so the runner reads it here after the timed
// launches and records the size that ran in the result row (team_size_ran).
inline int& team_size_that_ran() {
  static thread_local int size = 0;
  return size;
}
inline int record_team_size(int size) {
  team_size_that_ran() = size;
  return size;
}

// Team size for a policy: the wanted size when the backend allows it, else the largest allowed.
// Host backends cannot run 256-thread teams; the kernels below stay correct with fewer threads
// (each thread then owns several positions of the tile).
// A size the user asked for (requested > 0) must fit or it is an error naming both numbers.
template <class Policy, class Functor>
int fit_team_size(const Policy& probe, const Functor& f, int wanted, int requested,
                  const char* label) {
  const int max = probe.team_size_max(f, Kokkos::ParallelForTag());
  if (requested > 0) {
    if (requested > max)
      throw LaunchError(std::string(label) + ": team_size " + std::to_string(requested) +
                        " requested but the backend allows at most " + std::to_string(max));
    return record_team_size(requested);
  }
  return record_team_size(wanted <= max ? wanted : max);
}

template <class Policy>
void check_scratch(const char* label, std::size_t bytes, int level = 0) {
  const std::size_t max = Policy::scratch_size_max(level);
  if (bytes > max)
    throw LaunchError(std::string(label) + ": needs " + std::to_string(bytes) +
                      " bytes of team scratch (level " + std::to_string(level) +
                      ") but the backend allows " + std::to_string(max));
}

// A team kernel with `bytes` of team scratch per team at `level`: the team size that fits with the
// scratch set (scratch lowers the backend's limit; fit_team_size), then the labelled launch.
template <class Policy, class Body>
void launch_with_scratch(const char* label, const typename Policy::execution_space& exec,
                         int league, const Body& body, int wanted, int requested, std::size_t bytes,
                         int level = 0) {
  Policy probe(exec, league, Kokkos::AUTO);
  probe.set_scratch_size(level, Kokkos::PerTeam(bytes));
  const int ts = fit_team_size(probe, body, wanted, requested, label);
  Policy policy(exec, league, ts);
  policy.set_scratch_size(level, Kokkos::PerTeam(bytes));
  Kokkos::parallel_for(label, policy, body);
  compat::fit_scratch_carveout<Policy>(body, ts, bytes); // from the next launch on
}

} // namespace miniapp::kernels
