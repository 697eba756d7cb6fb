#include "run/stop_after_case.hpp"

#include <atomic>
#include <csignal>

namespace miniapp {

namespace {
std::atomic<bool> g_stop_after_case{false};
extern "C" void on_stop_after_case(int) {
  g_stop_after_case.store(true);
}
} // namespace

void install_stop_after_case_handler() {
  std::signal(SIGUSR1, on_stop_after_case);
}

bool stop_after_case_requested() {
  return g_stop_after_case.load();
}

void reset_stop_after_case() {
  g_stop_after_case.store(false);
}

} // namespace miniapp
