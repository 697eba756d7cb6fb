// The one run driver (run/driver.hpp) on one rank: the single-rank communicator, the exit-code
// rule, and whole runs of tiny cases on the host backend into a sink that records what it got.
#include "core/backends.hpp"
#include "kernels/kernel_case.hpp"
#include "run/driver.hpp"
#include "run/exit_code.hpp"
#include "run/rank_agreement.hpp"
#include "run/stop_after_case.hpp"
#include "timed_samples.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <csignal>
#include <cstdlib>
#include <functional>
#include <new>
#include <stdexcept>

namespace miniapp {
namespace {

TEST(SingleRank, CollectivesReturnTheirInput) {
  const SingleRank one;
  EXPECT_EQ(one.rank(), 0);
  EXPECT_EQ(one.size(), 1);
  const Outcome o = one.agree(3, "rank 0 ran out");
  EXPECT_EQ(o.code, 3);
  EXPECT_EQ(o.rank, 0);
  EXPECT_TRUE(o.everyone);
  EXPECT_EQ(o.message, "rank 0 ran out");
  std::vector<double> v = {1.5, -2};
  one.reduce(v, ReduceOp::sum);
  EXPECT_EQ(v, (std::vector<double>{1.5, -2}));
  EXPECT_EQ(one.reduce(7.25, ReduceOp::max), 7.25);
  EXPECT_EQ(one.broadcast("config text", 0), "config text");
}

// A case's phases (allocation, validation) end through one helper (run/rank_agreement.hpp): a
// case the kernel cannot run is unsupported, anything else thrown a runtime error, and running out
// of host memory names the resource and what the phase was doing.
TEST(RankAgreement, ACasePhaseEndsInOneOfThreeOutcomes) {
  const SingleRank one;
  const auto outcome = [&](const std::function<void()>& work) {
    return agree_on_case_phase(one, "validation", "validating axpby/flat/float32/8x8", work);
  };
  int ran = 0;
  EXPECT_EQ(outcome([&] { ++ran; }).code, kOk);
  EXPECT_EQ(ran, 1);
  const Outcome unsupported = outcome([] { throw UnsupportedCase("no such tile here"); });
  EXPECT_EQ(unsupported.code, kUnsupportedCase);
  EXPECT_EQ(unsupported.message, "no such tile here");
  const Outcome memory = outcome([] { throw std::bad_alloc(); });
  EXPECT_EQ(memory.code, kRuntimeError);
  EXPECT_EQ(memory.message, "out of memory (resource: host memory) while validating "
                            "axpby/flat/float32/8x8");
  const Outcome failed = outcome([] { throw std::runtime_error("device lost"); });
  EXPECT_EQ(failed.code, kRuntimeError);
  EXPECT_EQ(failed.message, "device lost"); // one rank: no rank or phase named
  EXPECT_LT(kUnsupportedCase, kConfigError);
}

CaseResult with_status(Status s) {
  CaseResult r;
  r.status = s;
  return r;
}

TEST(ExitCode, FollowsTheWorstStatus) {
  using S = Status;
  EXPECT_EQ(exit_code({}, false), kOk);
  EXPECT_EQ(exit_code({with_status(S::ok), with_status(S::unsupported)}, false), kOk);
  EXPECT_EQ(exit_code({with_status(S::ok), with_status(S::invalid)}, false), kValidationFailed);
  EXPECT_EQ(exit_code({with_status(S::invalid), with_status(S::error)}, false), kRuntimeError);
  EXPECT_EQ(exit_code({with_status(S::ok)}, true), kRuntimeError);
  // A wrong result outranks the interruption: the rows that ran say so.
  EXPECT_EQ(exit_code({with_status(S::invalid), with_status(S::interrupted)}, true),
            kValidationFailed);
}

// Records what the driver handed it; can be made to fail on the n-th add.
struct RecordingSink : ResultSink {
  int opened = 0, finished = 0, failures = 0, updates = 0, revisions = 0;
  bool finished_interrupted = false;
  std::vector<CaseResult> rows;
  int fail_on_add = -1;
  RunSetup setup{7, "told", "", true}; // what open() was told (not this until it is)
  void open(const RunSetup& s) override {
    ++opened;
    setup = s;
  }
  void add(const CaseResult& r) override {
    if (int(rows.size()) == fail_on_add)
      throw std::runtime_error("disk full (resource: results.csv)");
    rows.push_back(r);
  }
  void update(std::size_t index, const CaseResult& r) override {
    ASSERT_LT(index, rows.size());
    rows[index] = r;
    ++updates;
  }
  void revise(std::size_t index, const CaseResult& r) override {
    ASSERT_LT(index, rows.size());
    rows[index] = r;
    ++revisions;
  }
  void finish(bool interrupted) override {
    ++finished;
    finished_interrupted = interrupted;
  }
  void failed() noexcept override { ++failures; }
};

// A fixed copy-bandwidth ceiling, so the driver's share of the work is checkable.
struct FixedCeiling final : CeilingProvider {
  int asked = 0;
  void attach(CaseResult& r, const std::string&) override {
    ++asked;
    r.ceiling_name = "copy bandwidth";
    r.ceiling_level = r.work.bytes > 0 ? "L2" : "no working set";
    r.ceiling = 1000;
    r.ceiling_unit = "GB/s";
  }
};

// From its second row on, the ceiling is uncertain (500-2000 GB/s): as when a later row beats a
// level also when it is measured again (run/ceilings.hpp).
struct CeilingBeatenAtTheSecondRow final : CeilingProvider {
  int asked = 0;
  void attach(CaseResult& r, const std::string&) override {
    ++asked;
    r.ceiling_name = "copy bandwidth";
    r.ceiling_level = "L2";
    r.ceiling = 1000;
    r.ceiling_unit = "GB/s";
    revise(r, "");
  }
  bool revise(CaseResult& r, const std::string&) override {
    if (asked < 2 || r.ceiling_high == 2000)
      return false;
    r.ceiling_low = 500;
    r.ceiling_high = 2000;
    return true;
  }
};

Case axpby(std::int64_t m, std::int64_t n) {
  Case c;
  c.family = "axpby";
  c.variant = "flat";
  c.precision = Precision::float32;
  c.m = m;
  c.n = n;
  return c;
}

Case vendor_int32() { // BLAS has no int32 product: UnsupportedCase
  Case c;
  c.family = "matmul";
  c.variant = "vendor";
  c.precision = Precision::int32;
  c.m = c.n = c.k = 4;
  return c;
}

Plan host_plan(std::vector<Case> cases) {
  Plan p;
  p.settings.name = "driver-test";
  p.settings.warmup = 1;
  p.settings.repetitions = 3;
  p.backend = default_backend();
  for (std::size_t i = 0; i < cases.size(); ++i)
    cases[i].index = int(i);
  p.cases = std::move(cases);
  return p;
}

// A ceiling found uncertain at a later row marks the rows given it before, in the results and
// where they were written (once each, no progress line: ResultSink::revise), not only the rows
// from then on: an H200 run marked none of the rows before the one that beat its memory ceiling.
TEST(Driver, RowsGivenACeilingLaterFoundUncertainAreMarkedWhereWritten) {
  const Plan plan = host_plan({axpby(5, 7), axpby(3, 4), axpby(4, 4)});
  RecordingSink sink;
  CeilingBeatenAtTheSecondRow ceilings;
  const RunOutcome out = run_experiment(plan, SingleRank(), sink, ceilings, DriverOptions{});
  ASSERT_EQ(out.results.size(), 3u);
  ASSERT_EQ(sink.rows.size(), 3u);
  EXPECT_EQ(sink.revisions, 1); // the first row, after the second's ceiling
  EXPECT_EQ(sink.updates, 0);
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_DOUBLE_EQ(out.results[i].ceiling_low, 500) << i;
    EXPECT_DOUBLE_EQ(out.results[i].ceiling_high, 2000) << i;
    EXPECT_DOUBLE_EQ(sink.rows[i].ceiling_high, 2000) << i;
    EXPECT_DOUBLE_EQ(sink.rows[i].ceiling, 1000) << i;
  }
}

// The plan on one rank with MINIAPP_FAULT=spec, as `miniapp run` reads it.
RunOutcome run_with_fault(const Plan& plan, const char* spec, RecordingSink& sink,
                          FixedCeiling& ceilings) {
  setenv("MINIAPP_FAULT", spec, 1);
  const auto fault = parallel::FaultInjection::from_environment(0);
  unsetenv("MINIAPP_FAULT");
  DriverOptions opt;
  opt.fault = &fault;
  return run_experiment(plan, SingleRank(), sink, ceilings, opt);
}

TEST(Driver, RunsEveryCaseAndAnUnsupportedOneDoesNotStopTheOthers) {
  const Plan plan = host_plan({axpby(5, 7), vendor_int32(), axpby(3, 4)});
  RecordingSink sink;
  FixedCeiling ceilings;
  const RunOutcome out = run_experiment(plan, SingleRank(), sink, ceilings, DriverOptions{});
  EXPECT_EQ(out.failed_code, kOk);
  EXPECT_FALSE(out.interrupted);
  ASSERT_EQ(out.results.size(), 3u);
  EXPECT_EQ(sink.opened, 1);
  // One rank: the driver tells the sink there is no SUMMA (no panel, no transport).
  EXPECT_EQ(sink.setup.summa_panel, 0);
  EXPECT_EQ(sink.setup.summa_transport, "");
  EXPECT_FALSE(sink.setup.mpi_device_memory);
  EXPECT_EQ(sink.finished, 1);
  EXPECT_FALSE(sink.finished_interrupted);
  EXPECT_EQ(sink.failures, 0);
  ASSERT_EQ(sink.rows.size(), 3u);
  EXPECT_EQ(out.results[0].status, Status::ok) << out.results[0].message;
  EXPECT_EQ(out.results[1].status, Status::unsupported);
  EXPECT_NE(out.results[1].message.find("int32"), std::string::npos) << out.results[1].message;
  EXPECT_EQ(out.results[2].status, Status::ok) << out.results[2].message;
  EXPECT_EQ(exit_code(out.results, out.interrupted), kOk);
  EXPECT_EQ(ceilings.asked, 2); // the measured cases only

  const CaseResult& r = out.results[0];
  EXPECT_TRUE(r.validation.checked);
  EXPECT_TRUE(r.validation.passed);
  EXPECT_FALSE(r.distributed);
  expect_timed_samples(r, 3, default_backend());
  ASSERT_EQ(r.total.samples.size(), r.compute.samples.size());
  for (std::size_t i = 0; i < 3; ++i) // total = h2d + compute + d2h, repetition by repetition
    EXPECT_DOUBLE_EQ(r.total.samples[i],
                     r.h2d.samples[i] + r.compute.samples[i] + r.d2h.samples[i]);
  EXPECT_GT(r.compute.median, 0);
  EXPECT_DOUBLE_EQ(r.gbs, r.work.bytes / r.compute.median * 1e-9);
  EXPECT_EQ(r.ceiling, 1000);
  EXPECT_DOUBLE_EQ(r.pct_of_ceiling, 100.0 * r.gbs / 1000);
  EXPECT_EQ(r.ceiling_name, "copy bandwidth"); // no " x N ranks" on one rank
  // The ceiling saw the case's working set and its level reached the row (issue 22).
  EXPECT_EQ(r.ceiling_level, "L2");
}

TEST(Driver, ValidationFailureGivesExit4AndKeepsRunning) {
  const Plan plan = host_plan({axpby(5, 7), axpby(3, 4)});
  RecordingSink sink;
  FixedCeiling ceilings;
  const RunOutcome out = run_with_fault(plan, "0:validation", sink, ceilings);
  ASSERT_EQ(out.results.size(), 2u);
  EXPECT_EQ(sink.rows.size(), 2u);
  for (const auto& r : out.results) {
    EXPECT_EQ(r.status, Status::invalid);
    EXPECT_FALSE(r.validation.passed);
    EXPECT_EQ(r.validation.bad_elements, 1);
    // One rank's message names no rank, as `miniapp run` always printed it.
    EXPECT_EQ(r.message.rfind("1 element(s) out of tolerance, first injected fault", 0), 0u)
        << r.message;
  }
  EXPECT_EQ(exit_code(out.results, out.interrupted), kValidationFailed);
}

TEST(Driver, KernelFailureOnOneRankMarksTheCaseNotTheJob) {
  const Plan plan = host_plan({axpby(5, 7), axpby(3, 4)});
  RecordingSink sink;
  FixedCeiling ceilings;
  const RunOutcome out = run_with_fault(plan, "0:kernel", sink, ceilings);
  ASSERT_EQ(out.results.size(), 2u);
  for (const auto& r : out.results) {
    EXPECT_EQ(r.status, Status::error);
    EXPECT_NE(r.message.find("injected fault in phase kernel"), std::string::npos) << r.message;
  }
  EXPECT_EQ(ceilings.asked, 0);
  EXPECT_EQ(exit_code(out.results, out.interrupted), kRuntimeError);
}

TEST(Driver, OutputFailureEndsTheRunWithExit3AndMarksTheResultsFailed) {
  const Plan plan = host_plan({axpby(5, 7), axpby(3, 4), axpby(2, 2)});
  RecordingSink sink;
  sink.fail_on_add = 1; // the second row cannot be written
  FixedCeiling ceilings;
  const RunOutcome out = run_experiment(plan, SingleRank(), sink, ceilings, DriverOptions{});
  EXPECT_EQ(out.failed_code, kRuntimeError);
  EXPECT_EQ(out.results.size(), 2u); // the third case never ran
  EXPECT_EQ(sink.rows.size(), 1u);
  EXPECT_EQ(sink.failures, 1);
  EXPECT_EQ(sink.finished, 0);
}

TEST(Driver, RunCaseGivesTheValidatedRowOfOneCase) {
  config::Settings s;
  s.warmup = 0;
  s.repetitions = 2;
  const CaseResult r = run_case(axpby(4, 6), s, default_backend());
  EXPECT_EQ(r.status, Status::ok) << r.message;
  EXPECT_TRUE(r.validation.passed);
  expect_timed_samples(r, 2, default_backend());
  EXPECT_DOUBLE_EQ(r.work.bytes, 3.0 * 4 * 6 * sizeof(float)); // x and y read, r written
}

// SIGUSR1 while a case runs (here: as its row is written): that case is kept, the next does not
// start, and the run ends interrupted.
struct SignallingSink final : RecordingSink {
  std::size_t signal_at = 0;
  void add(const CaseResult& r) override {
    RecordingSink::add(r);
    if (std::size_t(r.c.index) == signal_at)
      std::raise(SIGUSR1);
  }
};

TEST(Driver, StopAfterCaseKeepsTheCaseRunningAndStartsNoOther) {
  install_stop_after_case_handler();
  const Plan plan = host_plan({axpby(5, 7), axpby(3, 4), axpby(2, 2)});
  SignallingSink sink;
  sink.signal_at = 0;
  FixedCeiling ceilings;
  const RunOutcome out = run_experiment(plan, SingleRank(), sink, ceilings, DriverOptions{});
  reset_stop_after_case();
  EXPECT_TRUE(out.interrupted);
  ASSERT_EQ(out.results.size(), 1u);
  EXPECT_EQ(out.results[0].status, Status::ok) << out.results[0].message;
  EXPECT_TRUE(sink.finished_interrupted);
  EXPECT_EQ(exit_code(out.results, out.interrupted), kRuntimeError);
}

TEST(Driver, StopAfterCaseDuringTheLastCaseLeavesTheRunComplete) {
  install_stop_after_case_handler();
  const Plan plan = host_plan({axpby(5, 7), axpby(3, 4)});
  SignallingSink sink;
  sink.signal_at = 1; // the last case: nothing is left to stop
  FixedCeiling ceilings;
  const RunOutcome out = run_experiment(plan, SingleRank(), sink, ceilings, DriverOptions{});
  reset_stop_after_case();
  EXPECT_FALSE(out.interrupted);
  ASSERT_EQ(out.results.size(), 2u);
  EXPECT_FALSE(sink.finished_interrupted);
  EXPECT_EQ(exit_code(out.results, out.interrupted), kOk);
}

} // namespace
} // namespace miniapp
