#pragma once
// Bounded MPI waits. A rank whose peer's node or link is gone gets no error from MPI: Open MPI's
// TCP transport notices a lost peer only when the kernel gives up on the connection (about 15
// minutes of retransmissions), and with one node's link taken down in the middle of SUMMA across
// two nodes of the local cluster the other rank waited in its broadcast until the job's time
// limit. So every wait of a multi-rank run polls its requests, and when none of them completes
// for the stall limit the rank stops with a message naming its node and the ranks (and nodes) it
// waited for. Nothing here runs without MPI.
#include <mpi.h>

#include <stdexcept>
#include <string>
#include <vector>

namespace miniapp {
class Communicator;
}

namespace miniapp::parallel {

// The default stall limit, in seconds. The longest wait of a healthy run is one rank's work that
// the others wait for at the next collective (rank 0 writing results.json, a slower rank's
// validation, a rank the host has not scheduled): every mpi_* test passed with a limit of 5 s on
// the 2-core machine at a load of 11-15, while with 2 s a 2-rank sweep (2 threads a rank) stopped
// at a load of 7. 20 s is four times the 5 s that held, and leaves a job that lost a node time to
// end within a minute (27 s after the fault on the local cluster: srun adds 7 s after the abort).
constexpr double kDefaultStallSeconds = 20;

// MINIAPP_MPI_STALL_TIMEOUT (seconds, 0 = wait without limit), or the default; throws
// std::invalid_argument naming the variable when it is set but no number of seconds.
double stall_seconds_from_environment();

// Set by MpiEnv once its ranks know each other: the limit, every rank's host (rank order) and
// the ranks, whose abort_all ends the job when a wait that cannot throw stalls.
void set_stall_limit(double seconds);
void set_stall_ranks(const Communicator* ranks, std::vector<std::string> hosts);

// A wait that saw nothing complete for the stall limit; what() names this rank's node and the
// ranks it waited for.
struct MpiStall : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Whom a request waits for: the root of a broadcast in `comm`, or (root -1) every other member.
struct Awaited {
  MPI_Comm comm;
  int root;
};

// Completes every request (each becomes MPI_REQUEST_NULL) and returns MPI's code (MPI_SUCCESS or
// the error); throws MpiStall when none completes for the stall limit, or for as long as this
// rank worked since its previous wait ended, if that is longer (a long phase's others may be late
// by a part of it: MINIAPP_FAULT=1:lag checks it). `what` names the operation
// ("SUMMA's panel broadcast"); awaited[i] says whom requests[i] waits for.
int wait_bounded(std::vector<MPI_Request>& requests, const std::vector<Awaited>& awaited,
                 const std::string& what);

// For waits that cannot throw (a destructor): ends every rank with the stall's message.
[[noreturn]] void abort_stalled(const MpiStall& stall);

} // namespace miniapp::parallel
