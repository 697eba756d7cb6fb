#pragma once
// The time estimate's calibration records of each host (plan/calibration.hpp): estimates.json
// beside ceilings.json (MINIAPP_CACHE_DIR or ~/.cache/miniapp), the last kCalibrationRuns runs per
// machine key (host, backend, CPUs, and the build's flavour when it is not an optimised one: a new
// commit's build runs the same kernels at the same speed, so the commit is not in the key, but a
// sanitized or unoptimised build does not: a run of the asan build measured its ceilings 4.4x
// slower than the README build, 21.6 s against 4.9 s, and its records made the README build's
// next estimate 22.9 s for a 6.4 s run).
//
// The file is read as hostile input: a regular file only (a symbolic link, a directory or a FIFO
// reads as empty), at most kCalibrationFileBytes, each record an object of typed, finite fields
// within the ranges a measurement can give; a record that is not is left out, a file that is not
// JSON reads as empty and is rewritten by the next record.
#include "plan/calibration.hpp"

#include <string>
#include <vector>

namespace miniapp {

// Eight records of under 300 bytes each for 32 machine keys fit in 80 KiB; four times that.
inline constexpr std::uintmax_t kCalibrationFileBytes = 320 * 1024;
inline constexpr std::size_t kCalibrationMachines = 32;

std::string calibration_path();
// "host|backend|cpus=N": the host's CPUs, not a run's threads (jobscript asks it too), then
// build_flavour_suffix() for a sanitized or unoptimised build.
std::string calibration_machine_key(const std::string& backend);
// "" for an optimised build without sanitizers (the README's, the presets users measure with);
// "|build=sanitized" when the program is compiled with AddressSanitizer or ThreadSanitizer, else
// "|build=unoptimized" at -O0: such builds run 2-10x slower and keep their own records.
std::string build_flavour_suffix();

// The records stored for `key`, oldest first; none when the file is absent or unusable.
std::vector<RunRecord> load_calibration(const std::string& path, const std::string& key);
// Appends `record` for `key` (keeping the last kCalibrationRuns) and rewrites the file atomically;
// false when it cannot be written (the run goes on: the calibration is a convenience).
bool store_calibration(const std::string& path, const std::string& key, const RunRecord& record);

} // namespace miniapp
