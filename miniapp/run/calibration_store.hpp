#pragma once
// The time estimate's calibration records of each host (plan/calibration.hpp): estimates.json
// beside ceilings.json (MINIAPP_CACHE_DIR or ~/.cache/miniapp), the last kCalibrationRuns runs per
// machine key, and each case's median launch time as the last run of it measured it (a case's
// kernel time from its own run, not from one rate for its family: on the 2-core development host
// matmul float32 1024^3 ran at 0.66 GFLOP/s flat and far slower tiled at tile 2, against the
// calibrated family rate of 20 GFLOP/s, so matmul_tiles was estimated at 22.7 s and its first case
// alone took 39 s). The machine key holds the host, backend, CPUs, and the build's flavour when it
// is not an optimised one: a new commit's build runs the same kernels at the same speed, so the
// commit is not in the key, but a sanitized or unoptimised build does not: a run of the asan build
// measured its ceilings 4.4x slower than the README build, 21.6 s against 4.9 s, and its records
// made the README build's next estimate 22.9 s for a 6.4 s run).
//
// The file is read as hostile input: a regular file only (a symbolic link, a directory or a FIFO
// reads as empty), at most kCalibrationFileBytes, each record an object of typed, finite fields
// within the ranges a measurement can give, each kernel time likewise; one that is not is left
// out, a file that is not JSON (or holds a key twice) reads as empty, with a warning once a
// process, and is rewritten by the next record.
#include "plan/calibration.hpp"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace miniapp {

inline constexpr std::size_t kCalibrationMachines = 32;
// Kernel times: the newest kCaseMedians case ids per machine key, for kCaseMedianMachines keys (the
// machine key of the run that stores them and the first others in the file). An id is at most
// kCaseIdChars of printable ASCII without quotes or backslashes (the longest id of the shipped
// configs and runs has 58: "tile_average/team_reduce/float32/8192x16384/tile=16/pinned"), so it is
// written unescaped; a time is within [kCaseMedianMinSeconds, kCaseMedianMaxSeconds].
inline constexpr std::size_t kCaseMedians = 512;
inline constexpr std::size_t kCaseMedianMachines = 8;
inline constexpr std::size_t kCaseIdChars = 160;
inline constexpr double kCaseMedianMinSeconds = 1e-9;
inline constexpr double kCaseMedianMaxSeconds = 1e5;
// The file's bound, from what store_calibration writes (1-space indent): a record is under 300
// bytes, so 32 keys of 8 records take 77 KiB; the 32 + 8 keys, of at most 1024 characters each
// written in at most 6 bytes ("\u0001"), 240 KiB; a kernel time is [id, seconds, busy] over 5
// lines at indents 3 and 4, id + 35 bytes plus at most 24 for the number: 219 bytes, 8 x 512 of
// them 876 KiB. 1193 KiB in all; 1.5 MiB (it was 320 KiB when the file held records only).
inline constexpr std::uintmax_t kCalibrationFileBytes = 1536 * 1024;

// A case's median launch as a run measured it, on a busy host or not.
struct CaseMedian {
  std::string id; // Case::id()
  double seconds = 0;
  bool busy = false;
};

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
// The kernel times stored for `key` by case id (seconds per launch); an entry that does not read as
// one (not [string, number, boolean], an id that is not one, a time out of range) is left out.
std::map<std::string, double> load_case_medians(const std::string& path, const std::string& key);
// Appends `record` for `key` (keeping the last kCalibrationRuns), and `cases`' kernel times (the
// newest per id, except that a busy host's does not replace a quiet one's: a loaded host runs
// slower than it will when quiet; the newest kCaseMedians ids), and rewrites the file atomically;
// false when it cannot be written (the run goes on: the calibration is a convenience).
bool store_calibration(const std::string& path, const std::string& key, const RunRecord& record,
                       const std::vector<CaseMedian>& cases = {});

} // namespace miniapp
