#include "core/host_load.hpp"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <unistd.h>

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

namespace {

double tick_seconds() {
  const long hz = sysconf(_SC_CLK_TCK);
  return hz > 0 ? 1.0 / double(hz) : 0.01;
}

// /proc/stat's "cpu" line: the busy ticks of every CPU; "cpuN" lines: the CPUs. < 0: unreadable.
double host_busy_ticks(int& cpus) {
  std::ifstream in("/proc/stat");
  std::string name;
  double busy = -1;
  cpus = 0;
  while (in >> name) {
    if (name == "cpu") {
      double user, nice, system, idle, iowait, irq, softirq, steal;
      if (!(in >> user >> nice >> system >> idle >> iowait >> irq >> softirq >> steal))
        return -1;
      busy = user + nice + system + irq + softirq + steal;
    } else if (name.rfind("cpu", 0) == 0) {
      ++cpus;
    } else if (busy >= 0) {
      break; // past the CPU lines
    }
    in.ignore(1 << 12, '\n');
  }
  return cpus > 0 ? busy : -1;
}

// Fields 14 and 15 of /proc/self/stat (utime, stime), after the command name's closing ')'.
double self_ticks() {
  std::ifstream in("/proc/self/stat");
  std::string line;
  if (!std::getline(in, line))
    return -1;
  const auto close = line.rfind(')');
  if (close == std::string::npos)
    return -1;
  std::string field;
  double utime = -1, stime = -1;
  std::istringstream rest(line.substr(close + 1));
  for (int i = 3; rest >> field && i <= 15; ++i) {
    if (i == 14)
      utime = std::strtod(field.c_str(), nullptr);
    if (i == 15)
      stime = std::strtod(field.c_str(), nullptr);
  }
  return utime >= 0 && stime >= 0 ? utime + stime : -1;
}

} // namespace

CpuTimes cpu_times_now() {
  CpuTimes t;
  const double tick = tick_seconds();
  const double host = host_busy_ticks(t.cpus), self = self_ticks();
  t.wall_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
  if (host >= 0 && self >= 0) {
    t.host_s = host * tick;
    t.self_s = self * tick;
  }
  return t;
}

double others_cpus(const CpuTimes& before, const CpuTimes& after) {
  const double wall = after.wall_s - before.wall_s;
  if (before.host_s < 0 || after.host_s < 0 || !(wall > 0) || after.cpus <= 0)
    return -1;
  const double others = (after.host_s - before.host_s) - (after.self_s - before.self_s);
  const double resolution = 2 * (after.cpus + 1) * tick_seconds();
  return std::max(0.0, (others - resolution) / wall);
}

bool case_busy(double others, double load, int cpus) {
  return others >= 0 ? others > kBusyOthersCpus : host_busy(load, cpus);
}

} // namespace miniapp
