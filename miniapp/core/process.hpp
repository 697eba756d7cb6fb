#pragma once
// Processes of this host by id and start time: a process id alone is reused once its process
// ended, its start time (clock ticks since boot, /proc/PID/stat field 22) with it is not.
#include <cstdint>

namespace miniapp {

// The start of process `pid` in clock ticks since boot; 0 where it is unknown (no such process,
// no /proc).
std::uint64_t process_start_ticks(long pid);
// Whether the process `pid` that started at `start_ticks` still runs on this host.
bool process_running(long pid, std::uint64_t start_ticks);

} // namespace miniapp
