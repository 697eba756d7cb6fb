#include "run/stop_signals.hpp"

#include <algorithm>
#include <atomic>
#include <csignal>
#include <numeric>
#include <unistd.h>

namespace miniapp {

namespace {
std::atomic<int> g_signals{0};
std::atomic<int> g_first_signal{0};
std::atomic<void (*)()> g_stop_hook{nullptr};
extern "C" void on_signal(int sig) {
  int none = 0;
  g_first_signal.compare_exchange_strong(none, sig);
  if (sig == SIGPIPE) { // every later write to the pipe signals again: stop, never die of it
    if (g_signals.fetch_add(1) == 0)
      if (auto hook = g_stop_hook.load())
        hook();
    return;
  }
  if (g_signals.fetch_add(1) > 0) {
    signal(sig, SIG_DFL);
    raise(sig);
  }
  if (auto hook = g_stop_hook.load())
    hook();
}

// SIGHUP: the terminal or the ssh session went away.
constexpr int kStopSignals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE};
} // namespace

void install_stop_handlers() {
  for (const int sig : kStopSignals)
    std::signal(sig, on_signal);
}

ScopedStopHandlers::ScopedStopHandlers() {
  for (const int sig : kStopSignals)
    saved_.emplace_back(sig, std::signal(sig, on_signal));
}
ScopedStopHandlers::~ScopedStopHandlers() {
  for (const auto& [sig, handler] : saved_)
    std::signal(sig, handler);
}
void set_stop_hook(void (*hook)()) {
  g_stop_hook.store(hook);
}
bool stop_requested() {
  return g_signals.load() > 0;
}
int stop_signal() {
  return g_first_signal.load();
}
void request_stop() {
  g_signals.fetch_add(1);
}

} // namespace miniapp
