#pragma once
// Non-blocking broadcasts in flight (MPI_Ibcast), so a rank can compute while a panel moves;
// also the barriers (MPI_Ibarrier) by which SUMMA's IPC transport says "panel consumed".
// Collective requests cannot be cancelled (MPI-3.1, 5.12), so on every path out (an exception
// between post() and wait() included) the destructor completes whatever is still pending:
// every rank posts the same broadcasts in the same order before it can fail, so they finish,
// and a rank that failed then ends the job with MPI_Abort (run/driver.cpp). No request
// outlives its scope and no rank waits on a broadcast nobody else posted. Every wait is bounded
// (parallel/stall_watch.hpp): a peer whose node or link is gone ends the job, naming it.
#include "parallel/stall_watch.hpp"

#include <mpi.h>

#include <climits>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace miniapp::parallel {

class PendingBroadcasts {
public:
  PendingBroadcasts() = default;
  PendingBroadcasts(const PendingBroadcasts&) = delete;
  PendingBroadcasts& operator=(const PendingBroadcasts&) = delete;
  ~PendingBroadcasts() {
    if (requests_.empty())
      return;
    try { // errors ignored: this runs on the way to an error report; a stall ends every rank
      wait_bounded(requests_, awaited_, "SUMMA's panel broadcasts");
    } catch (const MpiStall& e) {
      abort_stalled(e);
    }
  }

  bool active() const { return !requests_.empty(); }

  void post(void* data, std::int64_t count, MPI_Datatype type, int root, MPI_Comm comm) {
    if (count > INT_MAX)
      throw std::runtime_error("a SUMMA panel of " + std::to_string(count) +
                               " elements exceeds MPI's int count; use a smaller mpi.panel");
    MPI_Request r = MPI_REQUEST_NULL;
    check(MPI_Ibcast(data, int(count), type, root, comm, &r), "MPI_Ibcast");
    requests_.push_back(r);
    awaited_.push_back({comm, root});
  }

  void post_barrier(MPI_Comm comm) {
    MPI_Request r = MPI_REQUEST_NULL;
    check(MPI_Ibarrier(comm, &r), "MPI_Ibarrier");
    requests_.push_back(r);
    awaited_.push_back({comm, -1});
  }

  // Lets the library move data between the caller's pieces of computation (without a
  // progress thread most MPIs advance a transfer only inside MPI calls).
  void progress() {
    if (requests_.empty())
      return;
    int done = 0;
    check(MPI_Testall(int(requests_.size()), requests_.data(), &done, MPI_STATUSES_IGNORE),
          "MPI_Testall");
    if (done)
      clear();
  }

  // Throws MpiStall when nothing arrives for the stall limit (the caller ends every rank).
  void wait() {
    if (requests_.empty())
      return;
    int rc = MPI_SUCCESS;
    try {
      rc = wait_bounded(requests_, awaited_,
                        awaited_.front().root < 0 ? "SUMMA's panel barriers"
                                                  : "SUMMA's panel broadcasts");
    } catch (const MpiStall&) {
      clear(); // left unfinished: the job ends now, and the destructor must not wait again
      throw;
    }
    clear(); // completed (or failed: nothing left to wait for)
    check(rc, "MPI_Waitall");
  }

private:
  static void check(int rc, const char* what) {
    if (rc == MPI_SUCCESS)
      return;
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(rc, text, &len);
    throw std::runtime_error(std::string(what) +
                             " failed (resource: network): " + std::string(text, len));
  }

  void clear() {
    requests_.clear();
    awaited_.clear();
  }

  std::vector<MPI_Request> requests_;
  std::vector<Awaited> awaited_; // whom each request waits for, for a stall's message
};

} // namespace miniapp::parallel
