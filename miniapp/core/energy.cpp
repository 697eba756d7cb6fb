#include "core/energy.hpp"

#include "core/device_info.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <dirent.h>
#include <dlfcn.h>
#include <fstream>
#include <map>
#include <mutex>
#include <utility>

namespace miniapp {

namespace {

// A library opened with dlopen for the life of the process (its counters are read until exit).
void* open_library(const std::vector<const char*>& sonames, std::string* why) {
  std::string last;
  for (const char* so : sonames) {
    if (void* h = dlopen(so, RTLD_NOW | RTLD_LOCAL))
      return h;
    const char* e = dlerror();
    last = e ? e : "unknown reason";
  }
  *why = std::string(sonames.front()) + " could not be loaded: " + last;
  return nullptr;
}

template <class F>
bool symbol(void* lib, const char* name, F& f, std::string* why) {
  f = reinterpret_cast<F>(dlsym(lib, name));
  if (!f)
    *why = std::string("the library has no ") + name;
  return f != nullptr;
}

// ---- Linux powercap (RAPL): one cumulative microjoule counter per package, each wrapping at its
// own max_energy_range_uj.
bool read_u64(const std::string& path, std::uint64_t& v) {
  std::ifstream in(path);
  return bool(in >> v);
}

class Powercap final : public EnergyCounter {
public:
  struct Zone {
    std::string dir;
    std::uint64_t range = 0, last = 0;
    double total_j = 0; // joules since the first read, wraps unfolded
  };
  explicit Powercap(std::vector<Zone> zones) : zones_(std::move(zones)) {}
  bool read(double& joules) override {
    joules = 0;
    for (Zone& z : zones_) {
      std::uint64_t now = 0;
      if (!read_u64(z.dir + "/energy_uj", now))
        return false;
      const std::uint64_t was = z.last;
      z.last = now; // the next read steps from here, whatever this one concludes
      if (now < was &&
          !(z.range > 0 && was <= z.range && now <= z.range && z.range - was + now < z.range / 2)) {
        fault_ = z.dir + "/energy_uj stepped back from " + std::to_string(was) + " to " +
                 std::to_string(now) + " uJ (max_energy_range_uj " + std::to_string(z.range) +
                 "): not a wrap, so no energy is taken from it";
        return false;
      }
      const std::uint64_t step = now >= was ? now - was : z.range - was + now;
      z.total_j += double(step) * 1e-6;
      joules += z.total_j;
    }
    return true;
  }
  std::string fault() const override { return fault_; }

private:
  std::vector<Zone> zones_;
  std::string fault_;
};

// ---- NVML: nvmlDeviceGetTotalEnergyConsumption, millijoules since the driver was loaded.
using NvmlDevice = struct NvmlDeviceOpaque*;
struct Nvml {
  int (*init)() = nullptr;
  int (*by_pci)(const char*, NvmlDevice*) = nullptr;
  int (*by_index)(unsigned, NvmlDevice*) = nullptr;
  int (*energy)(NvmlDevice, unsigned long long*) = nullptr;
  const char* (*error)(int) = nullptr;
  // nvmlDeviceGetCurrentClocksEventReasons (drivers from 535 on) or its older name,
  // nvmlDeviceGetCurrentClocksThrottleReasons; null where the library has neither.
  int (*clock_reasons)(NvmlDevice, unsigned long long*) = nullptr;
};

class NvmlEnergy final : public EnergyCounter {
public:
  NvmlEnergy(const Nvml& api, NvmlDevice d) : api_(api), dev_(d) {}
  bool read(double& joules) override {
    unsigned long long mj = 0;
    if (api_.energy(dev_, &mj) != 0)
      return false;
    joules = double(mj) * 1e-3;
    return true;
  }
  bool clock_limits(unsigned& limits) override {
    unsigned long long reasons = 0;
    if (!api_.clock_reasons || api_.clock_reasons(dev_, &reasons) != 0)
      return false;
    limits = clock_limits_from_nvml(reasons);
    return true;
  }

private:
  Nvml api_;
  NvmlDevice dev_;
};

// ---- ROCm SMI: rsmi_dev_energy_count_get, a count whose unit (microjoules per count) it returns.
struct RocmSmi {
  int (*init)(std::uint64_t) = nullptr;
  int (*count)(std::uint32_t*) = nullptr;
  int (*pci_id)(std::uint32_t, std::uint64_t*) = nullptr;
  int (*energy)(std::uint32_t, std::uint64_t*, float*, std::uint64_t*) = nullptr;
};

class RocmEnergy final : public EnergyCounter {
public:
  RocmEnergy(const RocmSmi& api, std::uint32_t d) : api_(api), dev_(d) {}
  bool read(double& joules) override {
    std::uint64_t counts = 0, timestamp = 0;
    float uj_per_count = 0;
    if (api_.energy(dev_, &counts, &uj_per_count, &timestamp) != 0)
      return false;
    joules = double(counts) * double(uj_per_count) * 1e-6;
    return true;
  }

private:
  RocmSmi api_;
  std::uint32_t dev_;
};

// "0000:18:00.0" as ROCm SMI's BDF id: domain << 32 | bus << 8 | device << 3 | function.
bool bdf_id(const std::string& pci, std::uint64_t& id) {
  unsigned domain = 0, bus = 0, device = 0, function = 0;
  if (std::sscanf(pci.c_str(), "%x:%x:%x.%x", &domain, &bus, &device, &function) != 4)
    return false;
  id = (std::uint64_t(domain) << 32) | (bus << 8) | (device << 3) | function;
  return true;
}

std::string gpu_pci_bus_id(const std::string& backend) {
  return device_info(backend).pci_bus_id;
}

} // namespace

std::string clock_limit_names(unsigned limits) {
  std::string names;
  for (const auto& [bit, name] : {std::pair<unsigned, const char*>{clock_power_cap, "power cap"},
                                  {clock_thermal, "thermal"},
                                  {clock_hw_slowdown, "hardware slowdown"}})
    if (limits & bit)
      names += (names.empty() ? "" : ", ") + std::string(name);
  return names.empty() ? "none" : names;
}

unsigned clock_limits_from_nvml(unsigned long long reasons) {
  // nvmlClocksEventReasonSwPowerCap 0x4; SwThermalSlowdown 0x20, HwThermalSlowdown 0x40;
  // HwSlowdown 0x8, HwPowerBrakeSlowdown 0x80 (nvml.h).
  return (reasons & 0x4ull ? clock_power_cap : 0u) | (reasons & 0x60ull ? clock_thermal : 0u) |
         (reasons & 0x88ull ? clock_hw_slowdown : 0u);
}

std::unique_ptr<EnergyCounter> powercap_counter(const std::string& root, std::string* why) {
  std::vector<Powercap::Zone> zones;
  if (DIR* d = opendir(root.c_str())) {
    while (const dirent* e = readdir(d)) {
      const std::string name = e->d_name;
      // Packages only (intel-rapl:0): their subzones (intel-rapl:0:0, cores, dram) are inside them.
      if (name.rfind("intel-rapl:", 0) == 0 && name.find(':', 11) == std::string::npos)
        zones.push_back({root + "/" + name});
    }
    closedir(d);
  }
  std::sort(zones.begin(), zones.end(), [](auto& a, auto& b) { return a.dir < b.dir; });
  if (zones.empty()) {
    *why = "no powercap package zones (" + root + "/intel-rapl:*) on this host";
    return nullptr;
  }
  for (Powercap::Zone& z : zones)
    if (!read_u64(z.dir + "/energy_uj", z.last) ||
        !read_u64(z.dir + "/max_energy_range_uj", z.range)) {
      *why =
          z.dir + "/energy_uj or max_energy_range_uj is not readable (root only on most systems)";
      return nullptr;
    }
  return std::make_unique<Powercap>(std::move(zones));
}

std::unique_ptr<EnergyCounter> nvml_counter(const std::string& pci_bus_id, std::string* why) {
  void* lib = open_library({"libnvidia-ml.so.1"}, why);
  if (!lib)
    return nullptr;
  Nvml api;
  if (!symbol(lib, "nvmlInit_v2", api.init, why) ||
      !symbol(lib, "nvmlDeviceGetHandleByPciBusId_v2", api.by_pci, why) ||
      !symbol(lib, "nvmlDeviceGetHandleByIndex_v2", api.by_index, why) ||
      !symbol(lib, "nvmlDeviceGetTotalEnergyConsumption", api.energy, why) ||
      !symbol(lib, "nvmlErrorString", api.error, why))
    return nullptr;
  for (const char* name :
       {"nvmlDeviceGetCurrentClocksEventReasons", "nvmlDeviceGetCurrentClocksThrottleReasons"})
    if (!api.clock_reasons)
      api.clock_reasons = reinterpret_cast<decltype(api.clock_reasons)>(dlsym(lib, name));
  if (const int rc = api.init()) {
    *why = std::string("nvmlInit failed: ") + api.error(rc);
    return nullptr;
  }
  NvmlDevice dev = nullptr;
  // By PCI bus id: NVML numbers every GPU of the node, CUDA only the visible ones.
  const int rc = pci_bus_id.empty() ? api.by_index(0, &dev) : api.by_pci(pci_bus_id.c_str(), &dev);
  if (rc) {
    *why = "NVML has no device " + pci_bus_id + ": " + api.error(rc);
    return nullptr;
  }
  unsigned long long mj = 0;
  if (const int e = api.energy(dev, &mj)) {
    *why = std::string("nvmlDeviceGetTotalEnergyConsumption: ") + api.error(e) +
           " (GPUs before Volta have no energy counter)";
    return nullptr;
  }
  return std::make_unique<NvmlEnergy>(api, dev);
}

std::unique_ptr<EnergyCounter> rocm_smi_counter(const std::string& pci_bus_id, std::string* why) {
  void* lib = open_library(
      {"librocm_smi64.so.7", "librocm_smi64.so.6", "librocm_smi64.so.5", "librocm_smi64.so"}, why);
  if (!lib)
    return nullptr;
  RocmSmi api;
  if (!symbol(lib, "rsmi_init", api.init, why) ||
      !symbol(lib, "rsmi_num_monitor_devices", api.count, why) ||
      !symbol(lib, "rsmi_dev_pci_id_get", api.pci_id, why) ||
      !symbol(lib, "rsmi_dev_energy_count_get", api.energy, why))
    return nullptr;
  std::uint32_t n = 0;
  if (api.init(0) != 0 || api.count(&n) != 0) {
    *why = "rsmi_init or rsmi_num_monitor_devices failed";
    return nullptr;
  }
  std::uint64_t want = 0;
  const bool by_bus = bdf_id(pci_bus_id, want);
  for (std::uint32_t i = 0; i < n; ++i) {
    std::uint64_t id = 0;
    if (by_bus ? api.pci_id(i, &id) != 0 || id != want : i != 0)
      continue;
    std::uint64_t counts = 0, ts = 0;
    float res = 0;
    if (api.energy(i, &counts, &res, &ts) != 0) {
      *why = "rsmi_dev_energy_count_get failed (this GPU has no energy counter)";
      return nullptr;
    }
    return std::make_unique<RocmEnergy>(api, i);
  }
  *why = "ROCm SMI has no device " + pci_bus_id;
  return nullptr;
}

void characterise(EnergySource& s, int changes, double max_s) {
  if (!s.counter)
    return;
  Kokkos::Timer clock;
  double last = 0, first_change_s = -1, last_change_s = 0, smallest = 0;
  int seen = 0;
  if (!s.counter->read(last)) {
    s.why_none = s.name + ": the first read failed";
    s.counter.reset();
    return;
  }
  while (seen < changes && clock.seconds() < max_s) {
    double now = 0;
    if (!s.counter->read(now))
      continue;
    if (now == last)
      continue;
    const double t = clock.seconds(), step = now - last;
    if (step > 0)
      smallest = smallest > 0 ? std::min(smallest, step) : step;
    // The first change ends an interval that started before the loop: intervals count from it.
    if (first_change_s < 0)
      first_change_s = t;
    last_change_s = t;
    ++seen;
    last = now;
  }
  if (seen < 2) {
    s.why_none = s.name + ": the counter changed " + std::to_string(seen) + " time(s) in " +
                 std::to_string(max_s) + " s";
    s.counter.reset();
    return;
  }
  s.resolution_j = smallest;
  s.update_interval_s = (last_change_s - first_change_s) / (seen - 1);
}

std::string EnergySource::description() const {
  if (!counter)
    return "none: " + why_none;
  char buf[160];
  std::snprintf(buf, sizeof buf, " (steps of %.3g J seen, updated every %.3g ms)", resolution_j,
                update_interval_s * 1e3);
  return name + buf;
}

EnergySource& energy_source(const std::string& backend) {
  static std::mutex m;
  static std::map<std::string, EnergySource> opened;
  std::lock_guard<std::mutex> lock(m);
  const auto found = opened.find(backend);
  if (found != opened.end())
    return found->second;
  EnergySource& s = opened[backend];
  try {
    if (backend == "cuda" || backend == "hip") {
      const std::string bus = gpu_pci_bus_id(backend);
      const bool nvidia = backend == "cuda";
      s.counter = nvidia ? nvml_counter(bus, &s.why_none) : rocm_smi_counter(bus, &s.why_none);
      s.name = std::string(nvidia ? "NVML board energy" : "ROCm SMI energy") + " (GPU " +
               (bus.empty() ? "0" : bus) + ")";
    } else {
      const std::string root = "/sys/class/powercap";
      s.counter = powercap_counter(root, &s.why_none);
      s.name = "powercap package energy (" + root + "/intel-rapl:*)";
    }
    characterise(s);
  } catch (const std::exception& e) {
    s.counter.reset();
    s.why_none = std::string("opening the energy counter failed: ") + e.what();
  }
  return s;
}

} // namespace miniapp
