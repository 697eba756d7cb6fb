#pragma once
// Per-launch cost of an empty kernel: through Kokkos, and (CUDA) through a raw <<<1,1>>> launch
// compiled into the same binary. Both are the mean over `launches` launches with one fence.
#include <string>

namespace miniapp {
double kokkos_empty_launch_seconds(const std::string& backend, int launches);
bool raw_launch_available(const std::string& backend);
double raw_empty_launch_seconds(int launches);
} // namespace miniapp
