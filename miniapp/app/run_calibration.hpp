#pragma once
// Where a run's time goes, measured as it runs, and recorded as this host's calibration of the
// time estimate (plan/calibration.hpp, run/calibration_store.hpp): the process's time outside its
// cases, each case's wall time from its start to its row, and the part of it spent measuring its
// ceiling. RunClock sits between the driver and the real sink and ceilings, forwarding every call.
#include "plan/calibration.hpp"
#include "run/ceilings.hpp"
#include "run/driver.hpp"

#include <chrono>
#include <ostream>
#include <vector>

namespace miniapp {

// Seconds since this program started: since its exec, the loader, MPI and Kokkos included, not
// what the process ran before it exec'd miniapp.
double seconds_since_process_start();

class RunClock final : public ResultSink, public CeilingProvider {
public:
  RunClock(ResultSink& sink, CeilingProvider& ceilings) : sink_(sink), ceilings_(ceilings) {}
  void open(const RunSetup& setup) override;
  void add(const CaseResult& r) override;
  void update(std::size_t index, const CaseResult& r) override;
  void revise(std::size_t index, const CaseResult& r) override { sink_.revise(index, r); }
  void finish(bool interrupted) override { sink_.finish(interrupted); }
  void failed() noexcept override { sink_.failed(); }
  void attach(CaseResult& r, const std::string& backend) override;
  bool revise(CaseResult& r, const std::string& backend) override {
    return ceilings_.revise(r, backend);
  }
  // Each case's timing, in the order the cases were added (its later rounds summed into it).
  std::vector<CaseTiming> timings(const std::vector<CaseResult>& results) const;
  double cases_seconds() const; // all cases together

private:
  double lap(); // seconds since the last lap (or open)
  ResultSink& sink_;
  CeilingProvider& ceilings_;
  std::chrono::steady_clock::time_point last_;
  double ceiling_pending_ = 0; // ceilings measured in the case running now
  std::vector<CaseTiming> cases_;
};

// After a complete one-rank run whose rows all ended ok: its record stored for this host, with
// the error of `estimated_s` (the estimate the calibration gave before the run). One line says
// where the run's time went. Nothing is recorded for runs of several ranks, interrupted, resumed
// or failed ones: their time is not the plan's.
void record_run_time(std::ostream& os, const Plan& plan, int rounds,
                     const std::vector<CaseResult>& results, const RunClock& clock,
                     double estimated_s);

} // namespace miniapp
