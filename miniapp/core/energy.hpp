#pragma once
// The energy counter of the hardware a backend runs on, read around a case's timed launches
// (run/energy_window.hpp): on NVIDIA GPUs the board's cumulative energy through NVML, on AMD GPUs
// ROCm SMI's energy accumulator, on host backends the Linux powercap (RAPL) package counters.
// NVML and ROCm SMI are loaded at run time with dlopen (no header, no build-time dependency): a
// build runs on machines without them, and then says why it has no counter.
#include <memory>
#include <string>
#include <vector>

namespace miniapp {

// What holds a device's clock below its maximum (a set of these bits): its power limit, a thermal
// slowdown, a hardware slowdown (power brake, external signal). A kernel whose clock a limit held
// down runs at a rate that depends on how long it has been running: on an H100 at its 700 W
// limit the clock swings between about 1650 and 1965 MHz in a cycle of about a second, and
// tiled_rb float64 timed over 0.1 s read 5.7 ms a launch where 0.2-s stretches read 5.8-6.4 ms
// (docs/performance.md, "What limits each kernel").
enum ClockLimit : unsigned { clock_power_cap = 1u, clock_thermal = 2u, clock_hw_slowdown = 4u };
// "power cap", "power cap, thermal", ...; "none" for 0.
std::string clock_limit_names(unsigned limits);
// Whether a results' clock_limit (clock_limit_names, or "" where unknown) names a limit.
inline bool clock_was_limited(const std::string& clock_limit) {
  return !clock_limit.empty() && clock_limit != "none";
}
// NVML's clocks event reasons (nvmlClocksEventReason*) as ClockLimit bits; the reasons that do
// not limit (idle, application clocks, sync boost, display clock) are left out.
unsigned clock_limits_from_nvml(unsigned long long reasons);

// A cumulative counter: joules since an origin of its own (only differences mean anything).
class EnergyCounter {
public:
  virtual ~EnergyCounter() = default;
  // The counter now, in joules; false when the read failed, or when the counter stepped back
  // (fault() then says how): joules are never made up from it.
  virtual bool read(double& joules) = 0;
  // Why the last failed read failed where the counter can say more than that it failed; "".
  virtual std::string fault() const { return ""; }
  // The ClockLimit bits active on the device now; false where this counter cannot tell (the
  // host's powercap, ROCm SMI, an NVML without the query).
  virtual bool clock_limits(unsigned& limits) {
    (void)limits;
    return false;
  }
};

struct EnergySource {
  std::unique_ptr<EnergyCounter> counter; // null: no counter; why_none says why
  std::string name;                       // what is read, e.g. "NVML board energy (0000:18:00.0)"
  std::string why_none;
  // Measured when the counter is opened (characterise): the smallest step seen, and the mean
  // time between two changes of its value. A window shorter than a few update intervals is
  // mostly the counter's quantisation, not the case's energy.
  double resolution_j = 0;
  double update_interval_s = 0;
  std::string description() const; // name, resolution and interval, or "none: <why>"
};

// The counter for a backend's device ("cuda", "hip"; any other backend: the host's powercap),
// opened and characterised once per process. Never throws: a missing library, device or file
// gives a source without a counter and the reason.
EnergySource& energy_source(const std::string& backend);

// Readers, separately for tests. powercap_counter reads the package zones
// (<root>/intel-rapl:<n>/energy_uj, whose sum wraps at max_energy_range_uj) and needs every one
// readable; nullptr with *why set otherwise. A zone whose counter went down is a wrap only where
// its range is known and the unfolded step is under half of it (a counter reaches its range and
// restarts from 0 between two reads far less than half a range apart); any other step back (a
// reset, a range of 0, a value past the range) fails the read: taken as a wrap it gave 9.8e13 W.
std::unique_ptr<EnergyCounter> powercap_counter(const std::string& root, std::string* why);
std::unique_ptr<EnergyCounter> nvml_counter(const std::string& pci_bus_id, std::string* why);
std::unique_ptr<EnergyCounter> rocm_smi_counter(const std::string& pci_bus_id, std::string* why);

// Polls the counter in a tight loop until its value has changed `changes` times or max_s
// seconds passed, and fills resolution_j and update_interval_s; a counter that never changed
// is dropped (why_none says so).
void characterise(EnergySource& s, int changes = 8, double max_s = 1.0);

} // namespace miniapp
