#include "bench/kernel_bench.hpp"

#include "core/communicator.hpp"
#include "core/host_load.hpp"
#include "core/timing.hpp"
#include "kernels/executor.hpp"
#include "kernels/families.hpp"
#include "parallel/fault.hpp"
#include "run/case_validation.hpp"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <memory>
#include <new>
#include <numeric>

namespace miniapp {

namespace {

// The unit each benchmark reports in, fixed per benchmark (compare.py compares the numbers of two
// files as they stand, so a unit must not change between machines): the one in which the case's
// fastest plausible time (GPU-class rates, a few microseconds of launch) is at least 1, so a
// microsecond kernel does not read 0.000 ms.
benchmark::TimeUnit display_unit(const Case& c) {
  const double flops =
      family(c.family).rate == Rate::gflops ? 2.0 * c.m * c.n * c.k : 3.0 * c.m * c.n;
  const double bytes = 12.0 * c.m * c.n;
  const double seconds = std::max({flops / 1e13, bytes / 1e12, 5e-6});
  return seconds < 1e-3 ? benchmark::kMicrosecond
         : seconds < 1  ? benchmark::kMillisecond
                        : benchmark::kSecond;
}

// Google Benchmark calls a benchmark function several times while it sizes the iteration count
// (and once per --benchmark_repetitions): the case (allocation, inputs, the checked run) is made
// once per benchmark and kept until the next benchmark starts, so only one case holds device
// memory at a time.
struct Prepared {
  std::string name;
  std::unique_ptr<Executor> kernel; // the one-rank executor `miniapp run` times (run/driver.cpp)
  CaseResult outcome;               // status and message of the set-up and the validation
  std::string label;
  // Launches a sample chains, set by the first call's warm-up and kept: Google Benchmark calls
  // the function again for each repetition and requires the same iteration count of each, which
  // batches of another size would change.
  int launches_per_sample = 0;
};

Prepared current;
std::vector<CaseResult> outcomes;

void set_up(Prepared& p, const Case& c, const std::string& backend, const BenchRules& rules) {
  p.kernel = kernel_executor(c, backend);
  Executor& k = *p.kernel;
  // One checked run before timing, as `miniapp run` does: a benchmark of a wrong kernel is
  // worthless. Without validate_any_size the float64 host reference of a product (seconds to
  // minutes beyond 2048; the tests cover those code paths at odd sizes) bounds the size checked.
  const std::int64_t checked =
      rules.validate_any_size ? 0 : family(c.family).variant(c.variant).bench.validate_max_n;
  if (!rules.validate) {
    p.label = "unvalidated (validate: false)";
    k.upload();
  } else if (checked > 0 && std::max({c.m, c.n, c.k}) > checked) {
    p.label = "unvalidated (size > " + std::to_string(checked) + ")";
    k.upload();
  } else {
    checked_run(k);
    // MINIAPP_FAULT=0:validation fails it here as it fails `miniapp run`'s (parallel/fault.hpp).
    static const parallel::FaultInjection fault = parallel::FaultInjection::from_environment(0);
    if (validate_on_ranks(p.outcome, k, SingleRank(), fault, rules.rtol) &&
        p.outcome.status == Status::invalid)
      p.outcome.message = "validation failed: " + p.outcome.message;
    k.reset_inputs();
    k.upload();
  }
  k.run(); // warm-up: module load, handle creation
  k.fence();
}

Prepared& prepare(const std::string& name, const Case& c, const std::string& backend,
                  const BenchRules& rules, std::exception_ptr setup_failure) {
  if (current.name == name)
    return current;
  current = Prepared();
  current.name = name;
  CaseResult& r = current.outcome;
  r.c = c;
  try {
    if (setup_failure)
      std::rethrow_exception(setup_failure);
    set_up(current, c, backend, rules);
  } catch (const UnsupportedCase& e) {
    r.status = Status::unsupported;
    r.message = e.what();
  } catch (const std::bad_alloc&) {
    r.status = Status::error;
    r.message = "out of memory (resource: host memory) while setting up " + c.id();
  } catch (const std::exception& e) {
    r.status = Status::error;
    r.message = e.what();
  }
  outcomes.push_back(r);
  return current;
}

// The rate of the timed launches against the ceiling `miniapp run` attaches to the same row.
void report_ceiling(benchmark::State& state, Prepared& p, const std::vector<double>& times,
                    const std::string& backend, MeasuredCeilings& ceilings, std::string& label) {
  CaseResult r;
  r.c = p.kernel->local_case();
  r.work = p.kernel->local_work(); // the working set that picks the memory level
  // The rates of the counters (Google Benchmark's: work over the mean time), so pct_of_ceiling
  // is the bytes/s or FLOP/s counter over the ceiling counter.
  const double mean_s = std::accumulate(times.begin(), times.end(), 0.0) / double(times.size());
  r.gflops = r.work.flops / mean_s * 1e-9;
  r.gbs = r.work.bytes / mean_s * 1e-9;
  try {
    ceilings.attach(r, backend);
  } catch (const std::exception& e) {
    label += std::string(label.empty() ? "" : "; ") + "ceiling not measured: " + e.what();
    return;
  }
  if (!(r.ceiling > 0))
    return;
  // GFLOP/s or GB/s as FLOP/s or bytes/s, the unit of the rate counters
  state.counters["ceiling"] = r.ceiling * 1e9;
  state.counters["pct_of_ceiling"] = r.pct_of_ceiling;
  if (r.ceiling_uncertain()) { // its range, as the run's ceiling_low and ceiling_high
    state.counters["ceiling_low"] = r.ceiling_low * 1e9;
    state.counters["ceiling_high"] = r.ceiling_high * 1e9;
    label += std::string(label.empty() ? "" : "; ") + "(uncertain ceiling)";
  }
  label += std::string(label.empty() ? "" : "; ") +
           "ceiling: " + (r.ceiling_level.empty() ? "" : r.ceiling_level + " ") + r.ceiling_name +
           ", " + r.ceiling_unit; // read back by `miniapp compare` (results/bench_json.cpp)
}

void run_kernel(benchmark::State& state, const std::string& name, const Case& c,
                const std::string& backend, const BenchRules& rules,
                std::exception_ptr setup_failure) {
  Prepared& p = prepare(name, c, backend, rules, setup_failure);
  if (p.outcome.status != Status::ok) {
    state.SkipWithError(p.outcome.message.c_str());
    return;
  }
  Executor& k = *p.kernel;
  // The runner's rule and helper (core/timing.hpp): untimed launches, then samples back to back,
  // each chaining the launches the run's would. A sample is a batch of that many benchmark
  // iterations, one per launch, and its whole time their manual time: Google Benchmark reports
  // the time per launch and stops at --benchmark_min_time of launches, not of samples.
  const auto fence = [&] { k.fence(); };
  const auto launch = [&] { k.run(); };
  const int chained =
      time_samples(fence, launch, rules.warmup, 0, Sampling{kernel_sample_seconds}, [] {
        return true;
      }).launches_per_sample;
  if (p.launches_per_sample == 0)
    p.launches_per_sample = chained;
  const int n = p.launches_per_sample;
  std::vector<double> times; // per launch, one a sample
  const CpuTimes cpu = cpu_times_now();
  while (state.KeepRunningBatch(n)) {
    times.push_back(time_sample(fence, launch, n));
    state.SetIterationTime(times.back() * n);
  }
  // The other work beside the timed samples (the run's host_others): above a quarter of a CPU
  // the row is busy (core/host_load.hpp), marked in the label and by `miniapp compare`.
  const double others = others_cpus(cpu, cpu_times_now());
  if (others >= 0)
    state.counters["host_others"] = others;
  state.counters["launches_per_sample"] = n;
  // What tiled_rb chose at launch, as `miniapp run` records it (results' split_k and padded).
  if (const LaunchChoice ran = k.launch_choice(); ran.split_k > 0) {
    state.counters["split_k"] = ran.split_k;
    state.counters["padded"] = ran.padded ? 1 : 0;
  }
  const Work w = k.local_work();
  state.counters["FLOP/s"] =
      benchmark::Counter(w.flops, benchmark::Counter::kIsIterationInvariantRate);
  state.counters["bytes/s"] =
      benchmark::Counter(w.bytes, benchmark::Counter::kIsIterationInvariantRate);
  std::string label = p.label;
  if (case_busy(others, -1, 0))
    label += std::string(label.empty() ? "" : "; ") + "(busy)";
  if (rules.ceilings && !times.empty())
    report_ceiling(state, p, times, backend, *rules.ceilings, label);
  if (!label.empty())
    state.SetLabel(label);
}

} // namespace

void add_kernel_benchmark(const Case& c, const std::string& backend, const BenchRules& rules,
                          std::exception_ptr setup_failure) {
  const std::string name = c.id();
  benchmark::RegisterBenchmark(name.c_str(),
                               [c, backend, rules, name, setup_failure](benchmark::State& s) {
                                 run_kernel(s, name, c, backend, rules, setup_failure);
                               })
      ->UseManualTime()
      ->Unit(display_unit(c));
}

const std::vector<CaseResult>& kernel_benchmark_outcomes() {
  return outcomes;
}

void release_prepared() {
  current = Prepared();
}

} // namespace miniapp
