#pragma once
// How busy the host is, and the one rule that calls it busy. The run samples the load around
// every case (run/driver.cpp, the results column host_load); its console table and
// `miniapp compare` flag the rows, and compare flags runs that started on a busy host, all by
// host_busy().
namespace miniapp {

// The 1-minute load average (/proc/loadavg's first field): the runnable tasks, averaged. < 0 where
// the system does not say (not Linux).
double load_average_1min();

// More runnable tasks than CPUs (the run's own threads included: a run that fills every CPU
// alone stays at or below the count), so timings include other work. False when either is
// unknown (load < 0, cpus <= 0).
bool host_busy(double load, int cpus);

} // namespace miniapp
