#pragma once
// A case's energy (CaseResult::energy): the counter of core/energy.hpp read right before the
// first timed launch and after the last. Counters change in steps (NVML's every few tens of
// milliseconds), and a read can miss up to one step at each end of the window, so a window of a
// few launches measures the counter, not the case. The window is therefore extended with more
// samples of the same kind, chained and fenced like the timed ones, until it covers
// kEnergyIntervals update intervals (at most kEnergyMaxWindowS); what is still shorter than
// kEnergyMinIntervals intervals gets no joules and says why.
#include "core/energy.hpp"
#include "core/result.hpp"
#include "core/timing.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <string>

namespace miniapp {

inline constexpr int kEnergyIntervals = 40;      // a read error of at most 2/40 = 5%
inline constexpr double kEnergyMaxWindowS = 2.0; // launches added for at most this long
// A GPU case's timed samples last as long (core/timing.hpp): its rate and its joules come from
// the same launches.
static_assert(kEnergyMaxWindowS == gpu_span_seconds);
inline constexpr int kEnergyMinIntervals = 10; // shorter: too short to measure (20% error)
// More than any one counter's hardware draws: an H100 board at its limit 700 W, a host's packages
// a few hundred W each. A window that reads more (a counter reset mid-window read 1.7 MW for a
// serial axpby) is the counter's fault: noted, never given as watts.
inline constexpr double kMostWatts = 10000;

// What the window read: the counter at both ends, its length and the launches in it.
struct EnergyReadings {
  bool read = false; // both reads succeeded
  std::string fault; // where a read failed: why, as the counter says (EnergyCounter::fault)
  double begin_j = 0, end_j = 0, window_s = 0;
  int launches = 0;
  // The ClockLimit bits seen during the window (sampled after the timed launches, every
  // kClockSampleS while it is extended, and at its end); limits_known: at least one sample.
  bool limits_known = false;
  unsigned limits = 0;
};

// The clock's limits are read at most this often while the window is extended: each read leaves
// the device idle between two launches (an NVML read took 3.6 ms on the H100 machine), which
// would lower the window's mean power if it were frequent.
inline constexpr double kClockSampleS = 0.5;

// The row's fields from the readings: joules per launch, mean watts, and `rate` (the family's,
// in `unit`: "GFLOP/s" or "GB/s") per watt; null with the reason where the window is too short
// for the counter or a read failed.
EnergyUse energy_use(const EnergySource& s, const EnergyReadings& w, double rate,
                     const std::string& unit);
// A row without a counter: the note says why (no counter on this machine, several ranks).
EnergyUse energy_not_measured(const std::string& why);

// How long the window should last for this counter.
double energy_target_s(const EnergySource& s);

class EnergyWindow {
public:
  explicit EnergyWindow(EnergySource* s) : s_(s && s->counter ? s : nullptr) {}
  bool active() const { return s_ != nullptr; }
  // Right before the first timed launch (time_launches' before_timed).
  void begin() {
    if (!s_)
      return;
    w_.read = s_->counter->read(w_.begin_j);
    w_.fault = w_.read ? "" : s_->counter->fault();
    clock_.reset();
  }
  // After the timed launches (`timed` of them, in samples of `per_sample` launches back to back
  // between two fences): more samples like them (per_sample launch() calls, then fence()) until
  // the window is long enough or keep_going() turns false, then the second read.
  template <class Launch, class Fence, class KeepGoing>
  void finish(int timed, int per_sample, const Launch& launch, const Fence& fence,
              const KeepGoing& keep_going) {
    if (!s_)
      return;
    w_.launches = timed;
    const double target = energy_target_s(*s_);
    double sampled = clock_.seconds();
    sample_clock_limits();
    while (w_.launches > 0 && clock_.seconds() < target && keep_going()) {
      for (int i = 0; i < per_sample; ++i)
        launch();
      fence();
      w_.launches += per_sample;
      if (clock_.seconds() - sampled >= kClockSampleS) {
        sampled = clock_.seconds();
        sample_clock_limits();
      }
    }
    sample_clock_limits();
    double end = 0;
    w_.read = s_->counter->read(end) && w_.read;
    if (!w_.read && w_.fault.empty())
      w_.fault = s_->counter->fault();
    w_.window_s = clock_.seconds();
    w_.end_j = end;
  }
  EnergyUse result(double rate, const std::string& unit) const {
    return energy_use(*s_, w_, rate, unit);
  }

private:
  void sample_clock_limits() {
    unsigned now = 0;
    if (s_->counter->clock_limits(now)) {
      w_.limits_known = true;
      w_.limits |= now;
    }
  }
  EnergySource* s_;
  EnergyReadings w_;
  Kokkos::Timer clock_;
};

// The row's energy: the window's result with the family's rate per watt, or, where the backend
// has no counter, why.
EnergyUse case_energy(const CaseResult& r, const EnergyWindow& w, const std::string& backend);

} // namespace miniapp
