#include "core/device_info.hpp"

#include "core/compat.hpp"
#include "core/backends.hpp"

#include <fstream>
#include <sstream>
#include <unistd.h>

#ifdef KOKKOS_ENABLE_CUDA
#include <cuda_runtime.h>
#endif
#ifdef KOKKOS_ENABLE_HIP
#include <hip/hip_runtime.h>
#endif

namespace miniapp {

namespace {
std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  for (std::string line; std::getline(in, line);)
    if (line.rfind("model name", 0) == 0)
      return line.substr(line.find(':') + 2);
  return "unknown CPU";
}
std::uint64_t host_memory() {
  std::ifstream in("/proc/meminfo");
  std::string key;
  std::uint64_t kb = 0;
  while (in >> key >> kb) {
    if (key == "MemTotal:")
      return kb * 1024;
    in.ignore(1 << 10, '\n');
  }
  return 0;
}
} // namespace

DeviceInfo device_info(const std::string& backend) {
  DeviceInfo info;
  with_backend(backend, [&](auto exec) {
    info.concurrency = compat::concurrency(exec);
    return 0;
  });
  info.name = cpu_model();
  info.memory_bytes = info.host_memory_bytes = host_memory();
#ifdef KOKKOS_ENABLE_CUDA
  if (backend == "cuda") {
    cudaDeviceProp prop{};
    const int dev = Kokkos::Cuda().cuda_device();
    if (cudaGetDeviceProperties(&prop, dev) == cudaSuccess) {
      info.name = prop.name;
      info.memory_bytes = prop.totalGlobalMem;
      info.l2_bytes = std::uint64_t(prop.l2CacheSize);
    }
    char bus[32] = {0};
    if (cudaDeviceGetPCIBusId(bus, sizeof bus, dev) == cudaSuccess)
      info.pci_bus_id = bus;
  }
#endif
#ifdef KOKKOS_ENABLE_HIP
  if (backend == "hip") {
    hipDeviceProp_t prop{};
    int dev = 0;
    if (hipGetDevice(&dev) == hipSuccess && hipGetDeviceProperties(&prop, dev) == hipSuccess) {
      info.name = prop.name;
      info.memory_bytes = prop.totalGlobalMem;
      info.l2_bytes = std::uint64_t(prop.l2CacheSize);
      char bus[32] = {0};
      if (hipDeviceGetPCIBusId(bus, sizeof bus, dev) == hipSuccess)
        info.pci_bus_id = bus;
    }
  }
#endif
  return info;
}

std::string host_name() {
  char buf[256] = {0};
  gethostname(buf, sizeof buf - 1);
  return buf;
}

std::string compiler_description() {
  std::ostringstream os;
#if defined(__clang__)
  os << "clang " << __clang_major__ << "." << __clang_minor__ << "." << __clang_patchlevel__;
#elif defined(__GNUC__)
  os << "g++ " << __GNUC__ << "." << __GNUC_MINOR__ << "." << __GNUC_PATCHLEVEL__;
#endif
#if defined(__CUDACC_VER_MAJOR__)
  os << " with nvcc " << __CUDACC_VER_MAJOR__ << "." << __CUDACC_VER_MINOR__;
#endif
#if defined(__HIPCC__)
  os << " (hipcc)";
#endif
  os << ", C++ " << __cplusplus;
  return os.str();
}

} // namespace miniapp
