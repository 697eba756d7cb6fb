#include "parallel/stall_watch.hpp"
#include "core/communicator.hpp"
#include "core/environment.hpp"
#include "core/sinks.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <set>

namespace miniapp::parallel {

namespace {
double g_limit = kDefaultStallSeconds;
// When this rank's last bounded wait ended: what it worked since then is its share of the phase
// the next wait closes.
std::chrono::steady_clock::time_point g_last_wait_end = std::chrono::steady_clock::now();
const Communicator* g_ranks = nullptr;
std::vector<std::string> g_hosts;
constexpr int kRuntimeErrorCode = 3; // run/exit_code.hpp's kRuntimeError (a layer above this one)

std::string rank_and_host(int world_rank) {
  std::string s = "rank " + std::to_string(world_rank);
  if (world_rank >= 0 && std::size_t(world_rank) < g_hosts.size())
    s += " on " + g_hosts[std::size_t(world_rank)];
  return s;
}

// The world ranks the unfinished requests wait for.
std::set<int> awaited_ranks(const std::vector<MPI_Request>& requests,
                            const std::vector<Awaited>& awaited) {
  std::set<int> out;
  MPI_Group world;
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  for (std::size_t i = 0; i < requests.size() && i < awaited.size(); ++i) {
    if (requests[i] == MPI_REQUEST_NULL)
      continue;
    MPI_Group group;
    int me = 0, size = 0;
    MPI_Comm_rank(awaited[i].comm, &me);
    MPI_Comm_size(awaited[i].comm, &size);
    MPI_Comm_group(awaited[i].comm, &group);
    for (int r = 0; r < size; ++r) {
      if (r == me || (awaited[i].root >= 0 && awaited[i].root != me && r != awaited[i].root))
        continue;
      int w = MPI_UNDEFINED;
      MPI_Group_translate_ranks(group, 1, &r, world, &w);
      if (w != MPI_UNDEFINED)
        out.insert(w);
    }
    MPI_Group_free(&group);
  }
  MPI_Group_free(&world);
  return out;
}

std::string stall_message(const std::vector<MPI_Request>& requests,
                          const std::vector<Awaited>& awaited, const std::string& what,
                          double limit_s) {
  int me = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  const std::set<int> peers = awaited_ranks(requests, awaited);
  std::string names;
  int listed = 0;
  for (int p : peers) {
    if (++listed > 8) {
      names += " and " + std::to_string(peers.size() - 8) + " more";
      break;
    }
    names += (names.empty() ? "" : ", ") + rank_and_host(p);
  }
  char limit[32];
  std::snprintf(limit, sizeof limit, "%.3g", limit_s);
  return "no MPI progress for " + std::string(limit) + " s on " +
         (me < int(g_hosts.size()) ? g_hosts[std::size_t(me)] : std::string("this node")) +
         " waiting for " + (names.empty() ? std::string("the other ranks") : names) + " in " +
         what +
         " (resource: network): that rank, its node or the link to it has stopped "
         "(limit: MINIAPP_MPI_STALL_TIMEOUT, docs/mpi.md)";
}
} // namespace

double stall_seconds_from_environment() {
  const char* env = env::value("MINIAPP_MPI_STALL_TIMEOUT");
  if (!env || !*env)
    return kDefaultStallSeconds;
  char* end = nullptr;
  const double s = std::strtod(env, &end);
  if (end == env || *end != '\0' || !std::isfinite(s) || s < 0 || s > 1e6)
    throw std::invalid_argument("MINIAPP_MPI_STALL_TIMEOUT='" + for_terminal(env) +
                                "' must be a number of seconds from 0 (no limit) to 1000000");
  return s;
}

void set_stall_limit(double seconds) {
  g_limit = seconds;
}

void set_stall_ranks(const Communicator* ranks, std::vector<std::string> hosts) {
  g_ranks = ranks;
  g_hosts = std::move(hosts);
}

int wait_bounded(std::vector<MPI_Request>& requests, const std::vector<Awaited>& awaited,
                 const std::string& what) {
  using Clock = std::chrono::steady_clock;
  const int n = int(requests.size());
  std::vector<int> done(requests.size());
  auto progress = Clock::now();
  // The limit, or what this rank worked since its last wait if that is longer: the others' share
  // of a long phase (validating a 16384^2 block on a CPU takes minutes) can run late by a part of
  // it that no fixed limit covers, while a node lost in the middle of SUMMA is noticed after the
  // limit, each panel's work being milliseconds.
  const double worked = std::chrono::duration<double>(progress - g_last_wait_end).count();
  const double limit = g_limit > 0 ? std::max(g_limit, worked) : 0;
  for (;;) {
    int count = 0;
    // Polled as MPI_Waitall would (Open MPI's wait spins on its progress engine too).
    const int rc = MPI_Testsome(n, requests.data(), &count, done.data(), MPI_STATUSES_IGNORE);
    if (rc != MPI_SUCCESS || count == MPI_UNDEFINED) { // an error, or nothing left to wait for
      g_last_wait_end = Clock::now();
      return rc;
    }
    const auto now = Clock::now();
    if (count > 0)
      progress = now;
    else if (limit > 0 && std::chrono::duration<double>(now - progress).count() > limit)
      throw MpiStall(stall_message(requests, awaited, what, limit));
  }
}

void abort_stalled(const MpiStall& stall) {
  if (g_ranks)
    g_ranks->abort_all(kRuntimeErrorCode, stall.what());
  std::cerr << "miniapp: " << stall.what() << std::endl;
  MPI_Abort(MPI_COMM_WORLD, kRuntimeErrorCode);
  std::exit(kRuntimeErrorCode);
}

} // namespace miniapp::parallel
