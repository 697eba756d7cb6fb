#pragma once
// What a run produces per case (run/driver.hpp runs them), and the stop signals.
#include "kernels/kernel_case.hpp"
#include "plan/plan.hpp"

#include <string>
#include <vector>

namespace miniapp {

struct Stats {
  double min = 0, median = 0, max = 0, mean = 0;
  std::vector<double> samples; // every repetition, in run order: compare's significance test
};
Stats summarize(std::vector<double> samples);

// What became of one case. The exit code follows from these (run/exit_code.hpp).
enum class Status { ok, invalid, unsupported, error, interrupted };
const char* to_string(Status s); // "ok", "invalid", ... as written in the results

struct CaseResult {
  Case c;
  Status status = Status::ok;
  std::string message;
  Work work;
  Stats compute, h2d, d2h, total; // seconds; total = h2d + compute + d2h per repetition
  bool transfers_are_copies = false;
  Validation validation;
  double gflops = 0, gbs = 0, gflops_with_transfers = 0; // from the median times
  std::string ceiling_name;                              // what the rate is compared with
  double ceiling = 0;        // in the unit of the compared rate (GB/s or GFLOP/s)
  double pct_of_ceiling = 0; // 100 * rate / ceiling
  std::string ceiling_unit;
  // Multi-rank runs (run/driver.cpp): compute/h2d/d2h/total above are then
  // the slowest rank's per repetition; these spread each rank's median over the ranks.
  struct Spread {
    double min = 0, mean = 0, max = 0;
  };
  bool distributed = false;
  Spread compute_ranks, comm_ranks, transfer_ranks;
  // The operation's time the local product did not cover (communication and staging not
  // hidden), and the share of communication + staging time that was hidden, in [0, 1].
  Spread exposed_ranks, overlap_ranks;
  double imbalance = 1;  // max / mean over ranks of the compute time
  int panel = 0;         // SUMMA panel width (matmul)
  std::string transport; // how SUMMA's panels moved (parallel/transport.hpp); empty: no SUMMA
};

// Ceilings measured in the same process (see run/ceilings.hpp); the driver asks for one per case.
struct CeilingProvider {
  virtual ~CeilingProvider() = default;
  virtual void attach(CaseResult& r, const std::string& backend) = 0;
};

// SIGINT, SIGTERM and SIGPIPE (the reader of the output went away) ask the run to stop after the
// current repetition; a second SIGINT/SIGTERM ends the process at once.
void install_stop_handlers();
// Called (async-signal-safe code only) on the first stop signal, before the run may be killed
// (MPI_Abort sends SIGTERM, then SIGKILL): the results writer records its interrupted state.
void set_stop_hook(void (*hook)());
bool stop_requested();
void request_stop();

} // namespace miniapp
