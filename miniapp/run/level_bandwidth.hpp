#pragma once
// Bandwidth of one memory level (run/memory_levels.hpp): bytes read plus written per second of
// the faster of two streaming kernels on a working set that the level holds,
//   copy  y = x            (1 read, 1 write: transpose's pattern)
//   add   y = x + s * z    (2 reads, 1 write: axpby's pattern)
// Both, because neither bounds the other: from memory a write first reads its line (write
// allocate), so a copy moves 3 lines for 2 counted and an add 4 for 3; in L1 a core loads twice
// per cycle and stores once, so an add counts 3 elements a cycle and a copy 2. A ceiling that
// axpby beats is not a ceiling.
#include <cstdint>
#include <string>

namespace miniapp {

// GB/s (bytes read + written) on `backend` with the arrays of both kernels inside
// `working_set_bytes`. Each timed sample repeats the kernel until it has moved `sample_bytes`, at
// least twice (passes inside one launch on host backends, launches between two fences on GPUs),
// so a working set of a few KiB is still timed well above the timer's resolution and a launch's
// overhead; the best sample counts (a ceiling is what the level delivered, not its typical rate).
double measure_level_bandwidth(const std::string& backend, std::uint64_t working_set_bytes,
                               std::uint64_t sample_bytes = std::uint64_t(64) << 20);

} // namespace miniapp
