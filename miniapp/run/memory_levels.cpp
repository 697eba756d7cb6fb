#include "run/memory_levels.hpp"

#include <hwloc.h>

#include <algorithm>

namespace miniapp {

std::vector<MemoryLevel> host_levels(const std::vector<CacheLevel>& caches, int threads) {
  std::vector<CacheLevel> sorted = caches;
  std::sort(sorted.begin(), sorted.end(),
            [](const CacheLevel& a, const CacheLevel& b) { return a.depth < b.depth; });
  std::vector<MemoryLevel> levels;
  for (const CacheLevel& c : sorted) {
    if (c.bytes_each == 0 || c.depth <= 0)
      continue;
    const int used = std::max(1, std::min(threads, c.instances));
    const std::uint64_t each =
        c.cpus_each > 0 ? std::min(c.bytes_each, kMostCacheBytesPerCpu * std::uint64_t(c.cpus_each))
                        : c.bytes_each;
    MemoryLevel l{"L" + std::to_string(c.depth), each * std::uint64_t(used)};
    if (each < c.bytes_each)
      l.reported_bytes = c.bytes_each * std::uint64_t(used);
    levels.push_back(l);
  }
  levels.push_back({"memory", 0});
  return levels;
}

std::vector<MemoryLevel> gpu_levels(std::uint64_t l2_bytes) {
  std::vector<MemoryLevel> levels;
  if (l2_bytes > 0)
    levels.push_back({"L2", l2_bytes});
  // GPU memory at 1 GiB: a sample is a chain of launches, and each launch's few microseconds of
  // gap weigh on a short one. At twice the H100's L2 (100 MB, 37 us a launch) memory read
  // 2694-2736 GB/s where axpby flat 8192 (805 MB) reached 2900: 107% of that ceiling.
  levels.push_back({"memory", 0, std::uint64_t(1) << 30});
  return levels;
}

std::size_t level_for(const std::vector<MemoryLevel>& levels, double working_set_bytes) {
  for (std::size_t i = 0; i + 1 < levels.size(); ++i)
    if (levels[i].holds && working_set_bytes <= kLevelHoldsFactor * double(levels[i].bytes))
      return i;
  return levels.empty() ? 0 : levels.size() - 1;
}

std::vector<CacheLevel> host_caches() {
  std::vector<CacheLevel> out;
  hwloc_topology_t topo = nullptr;
  if (hwloc_topology_init(&topo) != 0)
    return out;
  if (hwloc_topology_load(topo) == 0) {
    // The CPUs this process may run on: caches of other CPUs hold none of its data.
    hwloc_bitmap_t bound = hwloc_bitmap_alloc();
    const bool have_binding = bound && hwloc_get_cpubind(topo, bound, HWLOC_CPUBIND_PROCESS) == 0;
    for (int depth = 1; depth <= 5; ++depth) {
      const hwloc_obj_type_t type = hwloc_obj_type_t(HWLOC_OBJ_L1CACHE + depth - 1);
      CacheLevel level;
      level.depth = depth;
      level.instances = 0;
      for (hwloc_obj_t o = hwloc_get_next_obj_by_type(topo, type, nullptr); o;
           o = hwloc_get_next_obj_by_type(topo, type, o)) {
        if (!o->attr || o->attr->cache.type == HWLOC_OBJ_CACHE_INSTRUCTION)
          continue;
        if (have_binding && o->cpuset && !hwloc_bitmap_intersects(o->cpuset, bound))
          continue;
        level.bytes_each = std::max<std::uint64_t>(level.bytes_each, o->attr->cache.size);
        if (o->cpuset)
          level.cpus_each = std::max(level.cpus_each, hwloc_bitmap_weight(o->cpuset));
        ++level.instances;
      }
      if (level.instances > 0 && level.bytes_each > 0)
        out.push_back(level);
    }
    hwloc_bitmap_free(bound);
  }
  hwloc_topology_destroy(topo);
  return out;
}

std::uint64_t measuring_working_set(const std::vector<MemoryLevel>& levels, std::size_t level) {
  // At most 1 GiB, whatever sizes the topology reports (a VM's made-up cache sizes are no reason
  // to fill the machine's memory).
  constexpr std::uint64_t most = std::uint64_t(1) << 30;
  if (level < levels.size() && levels[level].measured_at > 0)
    return std::min(most, levels[level].measured_at);
  if (level > 0 && level < levels.size())
    return std::min(most, std::uint64_t(kLevelHoldsFactor * double(levels[level - 1].bytes)));
  if (!levels.empty() && levels[0].bytes > 0)
    return std::min(most, levels[0].bytes / 2);
  return std::uint64_t(256) << 20;
}

} // namespace miniapp
