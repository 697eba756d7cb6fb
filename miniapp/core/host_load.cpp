#include "core/host_load.hpp"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
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

constexpr long kMaxCpus = 1 << 16; // beyond any machine's CPU numbers

double tick_seconds() {
  const long hz = sysconf(_SC_CLK_TCK);
  return hz > 0 ? 1.0 / double(hz) : 0.01;
}

// The CPUs this process's threads may run on: the union of their affinity masks (OpenMP binds
// each thread to its place; a job's cgroup confines them all). On a node shared with other jobs,
// work on the other CPUs is not the run's neighbour. Empty: unknown.
std::set<int> run_cpus() {
  std::set<int> cpus;
  std::error_code ec;
  for (const auto& task : std::filesystem::directory_iterator("/proc/self/task", ec)) {
    std::ifstream status(task.path() / "status");
    for (std::string line; std::getline(status, line);)
      if (line.rfind("Cpus_allowed_list:", 0) == 0) {
        const auto value = line.find_first_not_of(" \t", 18);
        if (value == std::string::npos || !parse_cpu_list(line.substr(value), cpus))
          return {};
        break;
      }
  }
  return cpus;
}

// /proc/stat's "cpuN" lines: the busy ticks of the CPUs in `only` (of every CPU, from the "cpu"
// line, where `only` is empty), and how many CPUs that is. < 0: unreadable.
double busy_ticks(const std::set<int>& only, int& cpus) {
  std::ifstream in("/proc/stat");
  std::string name;
  double all = -1, some = 0;
  int counted = 0;
  cpus = 0;
  while (in >> name && name.rfind("cpu", 0) == 0) {
    double user, nice, system, idle, iowait, irq, softirq, steal;
    if (!(in >> user >> nice >> system >> idle >> iowait >> irq >> softirq >> steal))
      return -1;
    const double busy = user + nice + system + irq + softirq + steal;
    if (name == "cpu") {
      all = busy;
    } else {
      ++cpus;
      if (only.count(std::atoi(name.c_str() + 3))) {
        some += busy;
        ++counted;
      }
    }
    in.ignore(1 << 12, '\n');
  }
  if (cpus == 0 || all < 0)
    return -1;
  if (only.empty())
    return all;
  cpus = counted;
  return counted > 0 ? some : -1;
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

bool parse_cpu_list(const std::string& list, std::set<int>& cpus) {
  std::istringstream in(list);
  for (std::string part; std::getline(in, part, ',');) {
    char* end = nullptr;
    const long first = std::strtol(part.c_str(), &end, 10);
    long last = first;
    if (*end == '-')
      last = std::strtol(end + 1, &end, 10);
    if (end == part.c_str() || (*end != '\0' && *end != '\n') || first < 0 || last < first ||
        last >= kMaxCpus)
      return false;
    for (long c = first; c <= last; ++c)
      cpus.insert(int(c));
  }
  return !cpus.empty();
}

CpuTimes cpu_times_on(const std::set<int>& cpus) {
  CpuTimes t;
  const double tick = tick_seconds();
  const double host = busy_ticks(cpus, t.cpus), self = self_ticks();
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
  if (before.host_s < 0 || after.host_s < 0 || !(wall > 0) || after.cpus <= 0 ||
      before.cpus != after.cpus)
    return -1;
  const double others = (after.host_s - before.host_s) - (after.self_s - before.self_s);
  const double resolution = 2 * (after.cpus + 1) * tick_seconds();
  return std::max(0.0, (others - resolution) / wall);
}

CpuTimes cpu_times_now() {
  return cpu_times_on(run_cpus());
}

bool case_busy(double others, double load, int cpus) {
  return others >= 0 ? others > kBusyOthersCpus : host_busy(load, cpus);
}

} // namespace miniapp
