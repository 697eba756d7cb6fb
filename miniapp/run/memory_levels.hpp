#pragma once
// The memory levels a bandwidth ceiling is measured for (run/ceilings.hpp), and which of them a
// case's working set lives in. Host: every data cache level hwloc reports, then memory. GPU: L2
// (from the device properties, core/device_info.hpp), then device memory.
#include <cstdint>
#include <string>
#include <vector>

namespace miniapp {

// One data (or unified) cache level as hwloc describes it: the size of one cache and how many
// such caches hold the CPUs this process may run on.
struct CacheLevel {
  int depth = 0; // 1 = L1, 2 = L2, ...
  std::uint64_t bytes_each = 0;
  int instances = 1;
  int cpus_each = 0; // CPUs that share one such cache (hwloc's cpuset); 0: unknown
};

// The most cache one CPU (hardware thread) is taken to have of one level. The most of any CPU we
// know is 24 MiB (AMD EPYC 9184X: 96 MiB of L3 for each 2 cores, 4 threads); a hypervisor may
// report its host's whole cache to each virtual CPU: the 2-core development VM lists two L3s of
// 508 MiB, one per CPU, and charged 192 MB arrays that streamed from memory to an L3 ceiling
// measured at 4 MiB (69.3 GB/s: the case read 7.8% of it). A level reported larger is taken as
// this much per CPU.
inline constexpr std::uint64_t kMostCacheBytesPerCpu = std::uint64_t(32) << 20;

struct MemoryLevel {
  std::string name;        // "L1", "L2", "L3", "memory"
  std::uint64_t bytes = 0; // what the backend's threads hold in this level together; 0: memory
  // The working set its bandwidth is measured on where measuring_working_set's rule does not
  // fit; 0: that rule.
  std::uint64_t measured_at = 0;
  std::uint64_t reported_bytes = 0; // what the topology said, where `bytes` is less (see above)
  // Whether the level takes working sets: a cache level that measured no faster than memory
  // serves a case nothing memory does not (run/ceilings.cpp clears it), so its cases go further.
  bool holds = true;
};

// The host's cache levels, smallest first, then "memory". A level's capacity is one cache times
// the caches the backend's `threads` can use (a private L2 per core gives two threads twice the
// room; a shared L3 gives them one L3), one cache at most kMostCacheBytesPerCpu per CPU sharing it.
std::vector<MemoryLevel> host_levels(const std::vector<CacheLevel>& caches, int threads);
// L2 of `l2_bytes` (none when 0), then "memory".
std::vector<MemoryLevel> gpu_levels(std::uint64_t l2_bytes);

// How far past its capacity a cache still serves a working set. A streaming working set a little
// larger than a cache is still mostly served from it (AMD's L3 is a victim cache of the L2s,
// Intel's replacement adapts to scans): on a 2-core EPYC VM with a 32 MiB L3, axpby with a 39 MB
// working set ran at 90% of its rate with 12 MB and at twice the memory copy bandwidth. A case
// charged to the next level would then read far above that level's ceiling.
inline constexpr double kLevelHoldsFactor = 2.0;

// Index in `levels` of the smallest level that holds `working_set_bytes` (at most
// kLevelHoldsFactor x its capacity) and takes working sets (`holds`); the last level (memory)
// holds everything.
std::size_t level_for(const std::vector<MemoryLevel>& levels, double working_set_bytes);

// The data cache levels hwloc reports for the CPUs this process may run on (empty when hwloc
// cannot tell: the levels are then memory only).
std::vector<CacheLevel> host_caches();

// The working set a level's bandwidth is measured on: the smallest one level_for() charges to it,
// kLevelHoldsFactor x the level below (half of the level for the first). Within a level the rate
// falls as the working set grows (part of a small one still hits the level below): measured at
// 16 MiB, the L3 of a 2-core EPYC VM (1 MiB L2) read 81 GB/s where axpby with 3 MiB reached 91.
// Memory without any cache known: 256 MiB. Never more than 1 GiB. A level's own measured_at wins.
std::uint64_t measuring_working_set(const std::vector<MemoryLevel>& levels, std::size_t level);

} // namespace miniapp
