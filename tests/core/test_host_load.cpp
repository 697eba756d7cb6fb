// The busy rule's measure (core/host_load.hpp): the CPUs other work took beside a case, this
// process's own threads left out. The figures are given, or measured as CPU time, never as a
// speed: under any load the checks hold.
#include "core/host_load.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <ctime>
#include <sched.h>
#include <set>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

namespace miniapp {
namespace {

double process_cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return double(t.tv_sec) + 1e-9 * double(t.tv_nsec);
}

TEST(HostLoad, OthersAreTheHostsCpuLessThisProcessesOverTheWallLessTheResolution) {
  const double tick = 1.0 / double(sysconf(_SC_CLK_TCK));
  const CpuTimes before{100, 40, 1000, 2}, after{103, 41, 1002, 2};
  // 3 s of the host's CPUs, 1 s of them this process's: 2 s of others in 2 s of wall, less
  // two ticks of each of the 2 CPUs and of this process.
  EXPECT_NEAR(others_cpus(before, after), (2.0 - 2 * 3 * tick) / 2, 1e-12);
  EXPECT_EQ(others_cpus(before, CpuTimes{101, 41, 1002, 2}), 0.0); // never below 0
  EXPECT_LT(others_cpus(CpuTimes{}, after), 0);                    // a sample unknown
  EXPECT_LT(others_cpus(after, after), 0);                         // no time between them
  EXPECT_TRUE(case_busy(0.26, 0, 2));
  EXPECT_FALSE(case_busy(0.0, 1e6, 2)); // measured: the load average does not decide
  EXPECT_TRUE(case_busy(-1, 2.5, 2));   // unknown: the load rule
}

// Two threads of this process spinning are its own work, not others'.
TEST(HostLoad, ThisProcessesThreadsAreItsOwn) {
  const CpuTimes before = cpu_times_now();
  ASSERT_GE(before.host_s, 0) << "Linux's /proc/stat and /proc/self/stat are readable";
  const double start = process_cpu_seconds();
  std::atomic<bool> stop{false};
  std::thread spinner([&] {
    while (!stop.load())
      ;
  });
  while (process_cpu_seconds() - start < 0.4)
    ;
  stop = true;
  spinner.join();
  const CpuTimes after = cpu_times_now();
  const double tick = 1.0 / double(sysconf(_SC_CLK_TCK));
  EXPECT_GE(after.self_s - before.self_s, 0.4 - 2 * tick);
  EXPECT_GE(after.host_s - before.host_s,
            after.self_s - before.self_s - 2 * (before.cpus + 1) * tick);
}

// A child spinning for 0.3 s of CPU is other work: at least that much, whatever else ran.
TEST(HostLoad, AnotherProcessesWorkIsOthers) {
  const CpuTimes before = cpu_times_now();
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    const double start = process_cpu_seconds();
    while (process_cpu_seconds() - start < 0.3)
      ;
    _exit(0);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  const CpuTimes after = cpu_times_now();
  const double others = others_cpus(before, after);
  const double tick = 1.0 / double(sysconf(_SC_CLK_TCK));
  EXPECT_GE(others * (after.wall_s - before.wall_s), 0.3 - 2 * (before.cpus + 2) * tick);
}

TEST(HostLoad, CpuListsAsTheKernelWritesThem) {
  std::set<int> cpus;
  ASSERT_TRUE(parse_cpu_list("0-3,8,10-11", cpus));
  EXPECT_EQ(cpus, (std::set<int>{0, 1, 2, 3, 8, 10, 11}));
  for (const char* bad : {"", "x", "3-1", "-2", "1,,2", "0-70000", "1 2"}) {
    std::set<int> none;
    EXPECT_FALSE(parse_cpu_list(bad, none)) << bad;
  }
}

// Work is counted on the CPUs it is asked about: a child pinned to one CPU spinning there for 0.3 s
// of CPU is at least that much on that CPU (on a node shared with other jobs the run is asked
// about its own CPUs only).
TEST(HostLoad, OtherWorkIsCountedOnTheCpusAskedAbout) {
  const long online = sysconf(_SC_NPROCESSORS_ONLN);
  if (online < 2)
    GTEST_SKIP() << "one CPU";
  const int last = int(online - 1);
  const CpuTimes before = cpu_times_on({last});
  ASSERT_EQ(before.cpus, 1);
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(last, &one);
    if (sched_setaffinity(0, sizeof one, &one) != 0)
      _exit(1);
    const double start = process_cpu_seconds();
    while (process_cpu_seconds() - start < 0.3)
      ;
    _exit(0);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "the child could not be pinned";
  const CpuTimes after = cpu_times_on({last});
  const double tick = 1.0 / double(sysconf(_SC_CLK_TCK));
  EXPECT_GE(others_cpus(before, after) * (after.wall_s - before.wall_s), 0.3 - 2 * 3 * tick);
}

} // namespace
} // namespace miniapp
