#pragma once
// How busy the host is, and the one rule that calls it busy. The run samples the host around
// every case (run/driver.cpp, the results columns host_load and host_others); its console table,
// `miniapp compare` and every other output flag the rows by core/marks.hpp's row_marks, which asks
// case_busy() here; compare flags runs that started on a busy host by host_busy().
#include <set>
#include <string>

namespace miniapp {

// The 1-minute load average (/proc/loadavg's first field): the runnable tasks, averaged. < 0 where
// the system does not say (not Linux).
double load_average_1min();

// More runnable tasks than CPUs (the run's own threads included: a run that fills every CPU
// alone stays at or below the count), so timings include other work. False when either is
// unknown (load < 0, cpus <= 0).
bool host_busy(double load, int cpus);

// CPU seconds at one moment: the run's CPUs' in use (the union of its threads' affinity masks, or
// every CPU where those are unknown; user, nice, system, irq, softirq and steal time in
// /proc/stat; steal is a virtual machine's CPU given to other guests) and this process's own (all
// its threads, /proc/self/stat), on the monotonic clock; cpus: how many CPUs that was. host_s < 0:
// unknown.
struct CpuTimes {
  double host_s = -1, self_s = 0, wall_s = 0;
  int cpus = 0;
};
CpuTimes cpu_times_now();
// The same on the CPUs given (every CPU where empty).
CpuTimes cpu_times_on(const std::set<int>& cpus);
// A CPU list as the kernel writes it ("0-3,8,10-11") added to `cpus`; false where it is not one
// (or names a CPU past 65535).
bool parse_cpu_list(const std::string& list, std::set<int>& cpus);

// The CPUs other work took between two samples: (the run's CPUs' CPU seconds less this process's)
// over the wall seconds, less what the counters' resolution (a clock tick of each CPU and of this
// process, twice) can hide, never below 0: at least this much other work ran beside the case on
// the CPUs the run may use (a job's neighbours on other CPUs of a shared node are not counted).
// < 0: unknown (a sample unknown, the CPUs changed between them, or no time between them).
double others_cpus(const CpuTimes& before, const CpuTimes& after);

// Other work above a quarter of a CPU around a case: a quiet run fills every CPU alone and
// reads 0-0.1 (its 1-minute load average 2.1-2.6 on 2 CPUs, which the load rule called busy); two
// busy loops beside a run on 2 CPUs read 1.3. Where others is unknown (< 0: a run on several ranks,
// whose node-mates are its own ranks, or a row written before host_others was), the load rule:
// host_busy(load, cpus).
inline constexpr double kBusyOthersCpus = 0.25;
bool case_busy(double others, double load, int cpus);

} // namespace miniapp
