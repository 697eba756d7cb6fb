#include "core/host_load.hpp"

#include <fstream>

namespace miniapp {

double load_average_1min() {
  std::ifstream in("/proc/loadavg");
  double l1 = -1;
  if (!(in >> l1) || l1 < 0)
    return -1;
  return l1;
}

bool host_busy(double load, int cpus) {
  return cpus > 0 && load >= 0 && load > cpus;
}

} // namespace miniapp
