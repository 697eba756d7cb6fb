#pragma once
// The stop signals: a run stops after the current repetition when one arrives (run/driver.hpp
// asks stop_requested() before every launch; the results writer records the interruption).
#include <utility>
#include <vector>

namespace miniapp {

// SIGINT, SIGTERM, SIGHUP, SIGQUIT and SIGPIPE (the reader of the output went away) ask the run
// to stop after the current repetition; a second SIGINT/SIGTERM/SIGHUP/SIGQUIT ends the process
// at once.
void install_stop_handlers();
// The stop handlers for a scope, the ones before put back at its end: for a command that only
// waits for a child process (the plot script), whose SIGPIPE must stay fatal after it.
class ScopedStopHandlers {
public:
  ScopedStopHandlers();
  ~ScopedStopHandlers();
  ScopedStopHandlers(const ScopedStopHandlers&) = delete;
  ScopedStopHandlers& operator=(const ScopedStopHandlers&) = delete;

private:
  std::vector<std::pair<int, void (*)(int)>> saved_;
};
// Called (async-signal-safe code only) on the first stop signal, before the run may be killed
// (MPI_Abort sends SIGTERM, then SIGKILL): the results writer records its interrupted state.
void set_stop_hook(void (*hook)());
bool stop_requested();
// The first stop signal received (0 before any; request_stop() sends none).
int stop_signal();
void request_stop();

} // namespace miniapp
