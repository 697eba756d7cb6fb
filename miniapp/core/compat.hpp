#pragma once
// The one place where Kokkos 3.4.01 and Kokkos 4.x/5.x differ for this project, and where a
// backend needs its own API (CUDA streams and events for SUMMA's overlap).
#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <string>
#include <type_traits>
#include <vector>

#ifndef KOKKOS_VERSION
#error "Kokkos_Core.hpp did not define KOKKOS_VERSION"
#endif
#if KOKKOS_VERSION < 40000 && defined(KOKKOS_ENABLE_CUDA)
#include <cuda_runtime_api.h> // device_per_rank_flag
#elif KOKKOS_VERSION < 40000 && defined(KOKKOS_ENABLE_HIP)
#include <hip/hip_runtime_api.h>
#endif

namespace miniapp::compat {

#ifdef KOKKOS_ENABLE_HIP
// HIP left Kokkos::Experimental in 4.0.
#if KOKKOS_VERSION >= 40000
using Hip = Kokkos::HIP;
using HipHostPinnedSpace = Kokkos::HIPHostPinnedSpace;
#else
using Hip = Kokkos::Experimental::HIP;
using HipHostPinnedSpace = Kokkos::Experimental::HIPHostPinnedSpace;
#endif
#endif

// The Kokkos flag that gives each MPI rank of a node its own GPU (empty: none needed or known).
// 4.x maps devices by rank itself; 3.4 needs the device id, the local rank modulo the devices.
inline std::string device_per_rank_flag(int local_rank) {
#if KOKKOS_VERSION >= 40000
  (void)local_rank;
  return "--kokkos-map-device-id-by=mpi_rank";
#else
  int count = 0;
#if defined(KOKKOS_ENABLE_CUDA)
  if (cudaGetDeviceCount(&count) != cudaSuccess)
    count = 0;
#elif defined(KOKKOS_ENABLE_HIP)
  if (hipGetDeviceCount(&count) != hipSuccess)
    count = 0;
#endif
  return count > 0 ? "--kokkos-device-id=" + std::to_string(local_rank % count) : "";
#endif
}

inline std::string kokkos_version_string() {
  const int v = KOKKOS_VERSION; // e.g. 30401, 40700, 50000
  return std::to_string(v / 10000) + "." + std::to_string((v / 100) % 100) + "." +
         std::to_string(v % 100);
}

// Scoped Kokkos Tools region: ScopedRegion exists only from 4.x; push/pop works everywhere.
class ScopedRegion {
public:
  explicit ScopedRegion(const std::string& name) { Kokkos::Profiling::pushRegion(name); }
  ~ScopedRegion() { Kokkos::Profiling::popRegion(); }
  ScopedRegion(const ScopedRegion&) = delete;
  ScopedRegion& operator=(const ScopedRegion&) = delete;
};

// concurrency() became an instance member in 4.x (the static one is deprecated).
template <class ExecSpace>
int concurrency(const ExecSpace& space) {
#if KOKKOS_VERSION >= 40000
  return space.concurrency();
#else
  (void)space;
  return ExecSpace::concurrency();
#endif
}

// Kokkos command-line flags whose names changed between 3.4 and 4.x. Every spelling a user may
// type (either version's) maps to the name the linked Kokkos parses; an empty name means the
// linked Kokkos has no such setting, so the flag is dropped with `note` (printed by the caller).
// Flags both versions spell alike are listed too: this is the whole set miniapp passes through.
struct KokkosFlag {
  const char* spelling;
  const char* linked; // what this Kokkos knows; "" = nothing
  enum Value { none, integer, text } value;
  const char* note;
};

inline const std::vector<KokkosFlag>& kokkos_flags() {
#if KOKKOS_VERSION >= 40000
  static const std::vector<KokkosFlag> flags {
    {"--kokkos-num-threads", "--kokkos-num-threads", KokkosFlag::integer, ""},
        {"--kokkos-threads", "--kokkos-num-threads", KokkosFlag::integer, ""},
        {"--kokkos-device-id", "--kokkos-device-id", KokkosFlag::integer, ""},
        {"--kokkos-device", "--kokkos-device-id", KokkosFlag::integer, ""},
        {"--kokkos-num-devices", "--kokkos-num-devices", KokkosFlag::text, ""},
        {"--kokkos-ndevices", "--kokkos-num-devices", KokkosFlag::text, ""},
        {"--kokkos-map-device-id-by", "--kokkos-map-device-id-by", KokkosFlag::text, ""},
        {"--kokkos-numa", "", KokkosFlag::integer,
         "Kokkos 4 has no NUMA setting; --kokkos-numa ignored"},
        {"--kokkos-tools-libs", "--kokkos-tools-libs", KokkosFlag::text, ""},
        {"--kokkos-tools-library", "--kokkos-tools-libs", KokkosFlag::text, ""},
        {"--kokkos-print-configuration", "--kokkos-print-configuration", KokkosFlag::none, ""},
#else
  static const std::vector<KokkosFlag> flags{
      {"--kokkos-num-threads", "--kokkos-threads", KokkosFlag::integer, ""},
      {"--kokkos-threads", "--kokkos-threads", KokkosFlag::integer, ""},
      {"--kokkos-device-id", "--kokkos-device-id", KokkosFlag::integer, ""},
      {"--kokkos-device", "--kokkos-device-id", KokkosFlag::integer, ""},
      {"--kokkos-num-devices", "--kokkos-num-devices", KokkosFlag::text, ""},
      {"--kokkos-ndevices", "--kokkos-num-devices", KokkosFlag::text, ""},
      // 3.4 has no mapping policy; miniapp itself gives each rank local rank mod devices.
      {"--kokkos-map-device-id-by", "", KokkosFlag::text,
       "Kokkos 3.4 has no --kokkos-map-device-id-by; miniapp maps one device per local rank"},
      {"--kokkos-numa", "--kokkos-numa", KokkosFlag::integer, ""},
      {"--kokkos-tools-libs", "--kokkos-tools-library", KokkosFlag::text, ""},
      {"--kokkos-tools-library", "--kokkos-tools-library", KokkosFlag::text, ""},
      {"--kokkos-print-configuration", "", KokkosFlag::none,
       "Kokkos 3.4 has no --kokkos-print-configuration; `miniapp info` prints the configuration"},
#endif
        {"--kokkos-disable-warnings", "--kokkos-disable-warnings", KokkosFlag::none, ""},
        {"--kokkos-tune-internals", "--kokkos-tune-internals", KokkosFlag::none, ""},
        {"--kokkos-tools-args", "--kokkos-tools-args", KokkosFlag::text, ""},
        {"--kokkos-tools-help", "--kokkos-tools-help", KokkosFlag::none, ""}, {
      "--kokkos-help", "--kokkos-help", KokkosFlag::none, ""
    }
  };
  return flags;
}

// Kokkos tools libraries named in the environment: KOKKOS_TOOLS_LIBS is Kokkos 4's name (the one
// every tools guide uses); Kokkos 3.4 reads only KOKKOS_PROFILE_LIBRARY, and would load nothing.
// Before Kokkos::initialize: on 3.4 the 4.x name is copied to the 3.4 one (an explicit
// KOKKOS_PROFILE_LIBRARY wins); 4.x reads both itself.
inline void export_kokkos_tools_environment() {
#if KOKKOS_VERSION < 40000
  const char* libs = std::getenv("KOKKOS_TOOLS_LIBS");
  if (libs && *libs)
    setenv("KOKKOS_PROFILE_LIBRARY", libs, 0);
#endif
}

// A second instance of ExecSpace for copies that run beside the default instance's kernels
// (SUMMA's panel packing and staging). Host backends: the default instance (kernels there are
// synchronous, and their staging copies do not exist).
template <class ExecSpace>
class SideInstance {
public:
  const ExecSpace& get() const { return space_; }

private:
  ExecSpace space_;
};

// Device time of the default instance's work between start() and stop(), without making the
// host wait, so the host can communicate meanwhile; one interval per take(), which waits for
// it. Host backends run kernels synchronously, so a host timer. Other device backends fence
// in stop() (correct times; their communication then does not overlap the product).
template <class ExecSpace>
class KernelClock {
public:
  void start(const ExecSpace& space) {
    space.fence();
    timer_.reset();
  }
  void stop(const ExecSpace& space) {
    space.fence();
    elapsed_ = timer_.seconds();
  }
  double take() { return elapsed_; }

private:
  Kokkos::Timer timer_;
  double elapsed_ = 0;
};

#ifdef KOKKOS_ENABLE_CUDA
// Its own stream, created non-blocking: Kokkos 3.4.01's default instance and cuBLAS use the
// legacy stream 0, which would otherwise serialize with it. The stream outlives the instance.
template <>
class SideInstance<Kokkos::Cuda> {
public:
  SideInstance() : stream_(), space_(stream_.s) {}
  const Kokkos::Cuda& get() const { return space_; }

private:
  struct Stream {
    cudaStream_t s = nullptr;
    Stream() { cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking); }
    ~Stream() { cudaStreamDestroy(s); }
    Stream(const Stream&) = delete;
    Stream& operator=(const Stream&) = delete;
  } stream_;
  Kokkos::Cuda space_;
};

// CUDA events on the instance's stream (cuBLAS's stream 0 is ordered with it).
template <>
class KernelClock<Kokkos::Cuda> {
public:
  KernelClock() {
    cudaEventCreate(&a_);
    cudaEventCreate(&b_);
  }
  ~KernelClock() {
    cudaEventDestroy(a_);
    cudaEventDestroy(b_);
  }
  KernelClock(const KernelClock&) = delete;
  KernelClock& operator=(const KernelClock&) = delete;
  void start(const Kokkos::Cuda& space) { cudaEventRecord(a_, space.cuda_stream()); }
  void stop(const Kokkos::Cuda& space) { cudaEventRecord(b_, space.cuda_stream()); }
  double take() {
    float ms = 0;
    cudaEventSynchronize(b_);
    cudaEventElapsedTime(&ms, a_, b_);
    return 1e-3 * double(ms);
  }

private:
  cudaEvent_t a_ = nullptr, b_ = nullptr;
};
#endif

// The shared memory a Kokkos 3.x CUDA team launch asks for per team: the team's reduction buffer
// (a double per thread and two more) before `team_bytes` of scratch, and 128 bytes of alignment
// slack on top.
inline std::size_t kokkos3_team_shmem(int team_size, std::size_t team_bytes) {
  return 8 * (std::size_t(team_size) + 2) + team_bytes + 128;
}

// The shared-memory carveout, in percent of the `per_sm` bytes an SM can give shared memory, that
// holds `blocks` such teams, each with the 1 KiB the CUDA runtime reserves per block (rounded up;
// at most 100).
inline int scratch_carveout_percent(int blocks, int team_size, std::size_t team_bytes, int per_sm) {
  if (blocks <= 0 || per_sm <= 0)
    return 100;
  const std::size_t need = std::size_t(blocks) * (kokkos3_team_shmem(team_size, team_bytes) + 1024);
  return int(
      std::min<std::size_t>(100, (100 * need + std::size_t(per_sm) - 1) / std::size_t(per_sm)));
}

// The shared-memory carveout of a CUDA team kernel: how much of each SM's L1 storage is kept for
// team scratch. Kokkos 3.x launches every team kernel with cudaFuncCachePreferShared, which on an
// H100 keeps 228 KiB for scratch and leaves the L1 about 28 KiB whatever the kernel's teams use;
// Kokkos 4 sets the carveout a kernel's occupancy needs by itself. Here, for 3.x, after the
// kernel's first launch (where Kokkos sets its preference, once per kernel): the carveout its
// resident teams need (scratch_carveout_percent), so the rest stays L1, where global loads in
// flight and cached lines live. Measured on an H100 (issue 26): float64 tiled_rb 6.69 -> 6.51 ms
// at 4096 (ncu: FP64 pipe 63.6% -> 65.3% busy, 233 -> 65 KiB of shared memory configured); the
// tiled transpose unchanged. No-op elsewhere (other backends, Kokkos 4 and later).
template <class Policy, class Functor>
void fit_scratch_carveout(const Functor& functor, int team_size, std::size_t team_bytes) {
  (void)functor;
  (void)team_size;
  (void)team_bytes;
#if KOKKOS_VERSION < 40000 && defined(KOKKOS_ENABLE_CUDA) && defined(__CUDACC__)
  if constexpr (std::is_same_v<typename Policy::execution_space, Kokkos::Cuda>) {
    using Driver = Kokkos::Impl::ParallelFor<Functor, Policy>;
    using Launch = Kokkos::Impl::CudaParallelLaunch<Driver, typename Policy::launch_bounds>;
    // Once per kernel, team size and scratch size: a kernel launched with another team size
    // may fit more teams on an SM, which then need more shared memory.
    static int fitted_team = 0;
    static std::size_t fitted_bytes = 0;
    if (fitted_team == team_size && fitted_bytes == team_bytes)
      return;
    fitted_team = team_size;
    fitted_bytes = team_bytes;
    const auto func = Launch::get_kernel_func();
    int device = 0, per_sm = 0, blocks = 0;
    if (cudaGetDevice(&device) != cudaSuccess ||
        cudaDeviceGetAttribute(&per_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, device) !=
            cudaSuccess ||
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(
            &blocks, func, team_size, kokkos3_team_shmem(team_size, team_bytes)) != cudaSuccess) {
      cudaGetLastError(); // a hint only: on any failure Kokkos's preference stays
      return;
    }
    if (cudaFuncSetAttribute(func, cudaFuncAttributePreferredSharedMemoryCarveout,
                             scratch_carveout_percent(blocks, team_size, team_bytes, per_sm)) !=
        cudaSuccess)
      cudaGetLastError();
  }
#endif
}

} // namespace miniapp::compat
