#pragma once
// The time estimate's calibration records of each host (plan/calibration.hpp): estimates.json
// beside ceilings.json (MINIAPP_CACHE_DIR or ~/.cache/miniapp), the last kCalibrationRuns runs per
// machine key (host, backend, CPUs; not the build: a new build runs the same
// kernels at the same speed, and the key would otherwise change with every commit).
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
// "host|backend|cpus=N": the host's CPUs, not a run's threads (jobscript asks it too)
std::string calibration_machine_key(const std::string& backend);

// The records stored for `key`, oldest first; none when the file is absent or unusable.
std::vector<RunRecord> load_calibration(const std::string& path, const std::string& key);
// Appends `record` for `key` (keeping the last kCalibrationRuns) and rewrites the file atomically;
// false when it cannot be written (the run goes on: the calibration is a convenience).
bool store_calibration(const std::string& path, const std::string& key, const RunRecord& record);

} // namespace miniapp
