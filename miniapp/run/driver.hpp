#pragma once
// The one run driver of `miniapp run`, on one rank or many (stage 3 of config -> plan -> run ->
// report). Each case goes through one Executor (kernels/executor.hpp) in phases; every phase
// ends with the ranks agreeing (Communicator::agree), so a failure on one rank stops all of them
// with the same exit code and a message naming that rank; a failure inside the timed,
// communicating launches ends the job through abort_all instead. On one rank every agreement is
// trivial and the autotuner may choose tiles ('auto').
#include "parallel/fault.hpp"
#include "plan/plan.hpp"
#include "core/communicator.hpp"
#include "run/exit_code.hpp"
#include "run/rank_agreement.hpp"
#include "run/ceilings.hpp"
#include "run/stop_signals.hpp" // RunOutcome::interrupted: a stop signal

#include <stdexcept>
#include <string>
#include <vector>

namespace miniapp {

// What the driver decided for the run as a whole, the one place it is decided: on several ranks
// SUMMA's panel width and transport (parallel/process_grid.hpp), with what MPI accepts. The sink
// gets it when it opens (results.json's metadata, the run header); each SUMMA row records the
// same transport.
struct RunSetup {
  int summa_panel = 0;               // 0: one rank (no SUMMA)
  std::string summa_transport;       // "host", "device_mpi", "device_ipc"; "" when none can run
  std::string transport_unavailable; // why no transport can run SUMMA here ("" when one can)
  bool mpi_device_memory = false;    // MPI may be handed device pointers (else staged on host)
};

// Where results go. The driver calls it on rank 0 only, inside the output phase (a throw there,
// or MINIAPP_FAULT=<rank>:output on any rank, ends the run with exit 3 on every rank).
class ResultSink {
public:
  virtual ~ResultSink() = default;
  virtual void open(const RunSetup& setup) = 0; // before the first case (the run directory)
  virtual void add(const CaseResult& r) = 0;    // after each case
  // After each later round of a case (--rounds): the index-th row added, now pooling its rounds.
  virtual void update(std::size_t index, const CaseResult& r) = 0;
  // The index-th row added, its ceiling found uncertain since (CeilingProvider::revise): the
  // same case, nothing run again, so no progress line.
  virtual void revise(std::size_t index, const CaseResult& r) = 0;
  virtual void finish(bool interrupted) = 0; // after the last; throws when it could not write
  virtual void failed() noexcept = 0; // the run ends in failure now (on several ranks: an abort)
};

struct DriverOptions {
  bool print = false;                              // print small result matrices (one rank only)
  const parallel::FaultInjection* fault = nullptr; // MINIAPP_FAULT, read in the config phase
  int rounds = 1; // --rounds: the case list runs this many times in turn (run/rounds.hpp)
};

struct RunOutcome {
  std::vector<CaseResult> results; // in plan order, up to where the run stopped
  bool interrupted = false;        // a stop signal on some rank (stop_requested), agreed
  int failed_code = kOk;           // nonzero: a phase outside the cases failed; exit with it
};

// Runs plan's cases on comm's ranks. Rank 0 alone writes to `sink`; every rank gets the results
// (rates from the slowest rank per repetition; per-rank spreads on several ranks).
RunOutcome run_experiment(const Plan& plan, const Communicator& comm, ResultSink& sink,
                          CeilingProvider& ceilings, const DriverOptions& opt);

// One case on this process alone, nothing written (the autotuner's tests).
CaseResult run_case(const Case& c, const config::Settings& s, const std::string& backend);

} // namespace miniapp
