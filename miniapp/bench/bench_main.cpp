// miniapp-bench: Google Benchmark over every kernel family and variant, with the ceilings measured
// in the same process (device copy, host STREAM-like copy, vendor GEMM as matmul/vendor, pinned and
// pageable host-to-device transfers) and the launch overhead of an empty kernel.
//   miniapp-bench [--miniapp-backend=NAME] [--miniapp-sizes=1024,4096] [--miniapp-quick]
//                 [--benchmark_* flags] [--kokkos-* flags]
// Timing: manual time through run/timing.hpp (the helper `miniapp run` uses). Rates are counters
// ("FLOP/s", "bytes/s"), so compare.py from libbenchmark-tools reads the JSON output.
#include "bench/launch_overhead.hpp"
#include "compat.hpp"
#include "kernels/kernel_case.hpp"
#include "kernels/vendor_blas.hpp"
#include "run/backends.hpp"
#include "run/ceilings.hpp"
#include "run/device_info.hpp"
#include "run/timing.hpp"

#include <Kokkos_Core.hpp>
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

namespace {

using namespace miniapp;

struct Options {
  std::string backend;
  std::vector<std::int64_t> sizes;
  bool quick = false;
};

Options take_options(int& argc, char** argv) {
  Options o;
  int out = 1;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a.rfind("--miniapp-backend=", 0) == 0) {
      o.backend = a.substr(18);
    } else if (a.rfind("--miniapp-sizes=", 0) == 0) {
      std::stringstream ss(a.substr(16));
      for (std::string s; std::getline(ss, s, ',');)
        o.sizes.push_back(std::stoll(s));
    } else if (a == "--miniapp-quick") {
      o.quick = true;
    } else {
      argv[out++] = argv[i];
    }
  }
  argc = out;
  return o;
}

// Google Benchmark calls a benchmark function several times while it sizes the iteration count:
// the case (allocation, inputs, the checked run) is made once per benchmark and kept until the
// next benchmark starts, so only one case holds device memory at a time.
struct Prepared {
  std::string name;
  std::unique_ptr<KernelCase> kernel;
  std::string error; // set up or validation failure
  std::string label;
};

Prepared current;

Prepared& prepare(const std::string& name, const Case& c, const std::string& backend) {
  if (current.name == name)
    return current;
  current = Prepared();
  current.name = name;
  try {
    current.kernel = make_kernel_case(c, backend);
    auto& k = *current.kernel;
    // One checked run before timing: a benchmark of a wrong kernel is worthless. The float64 host
    // reference of a product costs seconds to minutes beyond 2048 (the tests cover those code
    // paths at odd sizes), so larger products are timed unchecked and labelled so.
    if (c.family == "matmul" && std::max({c.m, c.n, c.k}) > 2048) {
      current.label = "unvalidated (size > 2048)";
      k.upload();
    } else {
      k.upload();
      k.poison();
      k.run();
      k.fence();
      k.download();
      const Validation v = k.validate(0);
      if (!v.passed)
        current.error = "validation failed: " + v.first_bad;
      k.reset_inputs();
      k.upload();
    }
    k.run(); // warm-up: module load, handle creation
    k.fence();
  } catch (const std::exception& e) {
    current.error = e.what();
  }
  return current;
}

void run_kernel(benchmark::State& state, const std::string& name, const Case& c,
                const std::string& backend) {
  Prepared& p = prepare(name, c, backend);
  if (!p.error.empty()) {
    state.SkipWithError(p.error.c_str());
    return;
  }
  KernelCase& k = *p.kernel;
  // The runner's rule and helper (run/timing.hpp): an untimed launch, then fenced launches back
  // to back, one per benchmark iteration.
  const auto fence = [&] { k.fence(); };
  const auto launch = [&] { k.run(); };
  time_launches(fence, launch, 1, 0);
  for (auto _ : state)
    state.SetIterationTime(time_fenced(fence, launch));
  const Work w = k.work();
  state.counters["FLOP/s"] =
      benchmark::Counter(w.flops, benchmark::Counter::kIsIterationInvariantRate);
  state.counters["bytes/s"] =
      benchmark::Counter(w.bytes, benchmark::Counter::kIsIterationInvariantRate);
  if (!p.label.empty())
    state.SetLabel(p.label);
}

void release_prepared() {
  current = Prepared();
}

Case make_case(const std::string& family, const std::string& variant, Precision p, std::int64_t n,
               int tile = 0) {
  Case c;
  c.family = family;
  c.variant = variant;
  c.precision = p;
  c.m = c.n = c.k = n;
  c.tile = tile;
  c.alpha = 2;
  c.beta = -1;
  if (family != "matmul")
    c.k = 0;
  return c;
}

void register_all(const Options& o, const std::string& backend) {
  const bool gpu = backend == "cuda" || backend == "hip";
  std::vector<std::int64_t> stream_sizes = o.sizes, gemm_sizes = o.sizes;
  if (o.sizes.empty()) {
    stream_sizes = o.quick ? std::vector<std::int64_t>{64, 256}
                   : gpu   ? std::vector<std::int64_t>{1024, 2048, 4096, 8192}
                           : std::vector<std::int64_t>{1024, 2048, 4096, 8192};
    gemm_sizes = o.quick ? std::vector<std::int64_t>{64, 128}
                 : gpu   ? std::vector<std::int64_t>{1024, 2048, 4096, 8192}
                         : std::vector<std::int64_t>{512, 1024, 2048};
  }
  auto add = [&](const Case& c, const std::string& name) {
    benchmark::RegisterBenchmark(
        name.c_str(), [c, backend, name](benchmark::State& s) { run_kernel(s, name, c, backend); })
        ->UseManualTime()
        ->Unit(benchmark::kMillisecond);
  };
  for (auto n : stream_sizes) {
    const std::string size = "/" + std::to_string(n);
    for (const char* v : {"flat", "mdrange", "team"})
      add(make_case("axpby", v, Precision::float32, n),
          std::string("axpby/") + v + "/float32" + size);
    for (int S : {16, 32})
      for (const char* v : {"leader", "team_reduce"})
        add(make_case("tile_average", v, Precision::float32, n, S),
            std::string("tile_average/") + v + "/float32/S" + std::to_string(S) + size);
  }
  for (auto n : gemm_sizes) {
    const std::string size = "/" + std::to_string(n);
    for (Precision p : {Precision::float32, Precision::float64}) {
      const std::string t = std::string("/") + to_string(p);
      if (p == Precision::float32 && n <= 4096)
        add(make_case("matmul", "flat", p, n), "matmul/flat" + t + size);
      if (p == Precision::float32)
        for (int tw : {16, 32})
          add(make_case("matmul", "tiled", p, n, tw),
              "matmul/tiled" + std::to_string(tw) + t + size);
      add(make_case("matmul", "tiled_rb", p, n, 128), "matmul/tiled_rb128" + t + size);
      add(make_case("matmul", "vendor", p, n), "matmul/vendor" + t + size);
    }
  }
  // Ceilings, measured by this process.
  const std::size_t copy_bytes = o.quick ? (std::size_t(8) << 20) : (std::size_t(512) << 20);
  benchmark::RegisterBenchmark(
      "ceiling/copy",
      [=](benchmark::State& s) {
        double gbs = 0;
        for (auto _ : s) {
          gbs = measure_copy_bandwidth(backend, copy_bytes, 5);
          s.SetIterationTime(2.0 * copy_bytes / (gbs * 1e9));
        }
        s.counters["bytes/s"] =
            benchmark::Counter(2.0 * copy_bytes, benchmark::Counter::kIsIterationInvariantRate);
      })
      ->UseManualTime()
      ->Iterations(3);
  if (gpu) {
    benchmark::RegisterBenchmark(
        "ceiling/h2d_pinned",
        [=](benchmark::State& s) {
          for (auto _ : s) {
            const double gbs = measure_pinned_h2d_bandwidth(backend, copy_bytes / 2, 5);
            s.SetIterationTime(copy_bytes / (gbs * 1e9));
          }
          s.counters["bytes/s"] =
              benchmark::Counter(double(copy_bytes), benchmark::Counter::kIsIterationInvariantRate);
        })
        ->UseManualTime()
        ->Iterations(3);
    const std::string host = compiled_backends().size() > 1 ? compiled_backends()[0] : "";
    if (!host.empty())
      benchmark::RegisterBenchmark(
          "ceiling/host_copy",
          [=](benchmark::State& s) {
            for (auto _ : s) {
              const double gbs = measure_copy_bandwidth(host, copy_bytes / 4, 5);
              s.SetIterationTime(copy_bytes / 2 / (gbs * 1e9));
            }
            s.counters["bytes/s"] = benchmark::Counter(
                double(copy_bytes / 2), benchmark::Counter::kIsIterationInvariantRate);
          })
          ->UseManualTime()
          ->Iterations(3);
  }
  benchmark::RegisterBenchmark("launch/kokkos_empty",
                               [=](benchmark::State& s) {
                                 for (auto _ : s)
                                   s.SetIterationTime(kokkos_empty_launch_seconds(backend, 1000));
                               })
      ->UseManualTime()
      ->Unit(benchmark::kMicrosecond);
  if (raw_launch_available(backend))
    benchmark::RegisterBenchmark("launch/raw_empty",
                                 [=](benchmark::State& s) {
                                   for (auto _ : s)
                                     s.SetIterationTime(raw_empty_launch_seconds(1000));
                                 })
        ->UseManualTime()
        ->Unit(benchmark::kMicrosecond);
}

} // namespace

int main(int argc, char** argv) {
  Options opt = take_options(argc, argv);
  Kokkos::initialize(argc, argv);
  {
    const std::string backend = resolve_backend(opt.backend.empty() ? "auto" : opt.backend);
    const DeviceInfo dev = device_info(backend);
    benchmark::AddCustomContext("miniapp_backend", backend);
    benchmark::AddCustomContext("miniapp_device", dev.name);
    benchmark::AddCustomContext("miniapp_concurrency", std::to_string(dev.concurrency));
    benchmark::AddCustomContext("kokkos_version", compat::kokkos_version_string());
    benchmark::AddCustomContext("kokkos_backends", join(compiled_backends(), ","));
    benchmark::AddCustomContext("host_blas", kernels::host_blas_name());
    register_all(opt, backend);
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv))
      return 2;
    benchmark::RunSpecifiedBenchmarks();
    release_prepared(); // device memory goes back before Kokkos::finalize
    benchmark::Shutdown();
  }
  Kokkos::finalize();
  return 0;
}
