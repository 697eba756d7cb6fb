#pragma once
// What the backend runs on: device name and memory, read once Kokkos is initialised.
#include <cstdint>
#include <string>

namespace miniapp {

struct DeviceInfo {
  std::string name;                    // GPU name, or the host CPU model
  std::uint64_t memory_bytes = 0;      // device memory (GPU) or host memory (host backends)
  std::uint64_t host_memory_bytes = 0; // host memory (MemTotal), whatever the backend
  int concurrency = 0;                 // Kokkos concurrency of the backend's execution space
  std::uint64_t l2_bytes = 0; // GPU L2 cache (0 on host backends: run/memory_levels.hpp asks hwloc)
  std::string pci_bus_id; // GPU's "0000:18:00.0" ("" on host backends): finds it in NVML/ROCm SMI
};

DeviceInfo device_info(const std::string& backend);
std::string host_name();
std::string compiler_description();

} // namespace miniapp
