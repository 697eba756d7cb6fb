// miniapp-bench: Google Benchmark over every kernel family and variant, with the ceilings measured
// in the same process (device copy, host STREAM-like copy, vendor GEMM as matmul/vendor, pinned and
// pageable host-to-device transfers) and the launch overhead of an empty kernel.
//   miniapp-bench [--miniapp-backend=NAME] [--miniapp-sizes=1024,4096] [--miniapp-quick]
//                 [--benchmark_* flags] [--kokkos-* flags]     (--help lists them)
//   miniapp-bench --miniapp-config=FILE.yaml [--miniapp-set KEY=VALUE]... [--benchmark_* ...]
//                 the cases `miniapp run FILE.yaml` runs, and their ceilings
//                 (bench/config_cases.hpp)
// Its own flags are parsed with CLI11 (bad values exit 2); --benchmark_* go to Google Benchmark,
// --kokkos-* (translated for the linked Kokkos) to Kokkos. Kokkos starts as in `miniapp run`
// (app/kokkos_launch.hpp: same thread binding, nothing of Kokkos' on stdout), so stdout carries
// only the benchmark report: `--benchmark_format=json > x.json` is JSON.
// Timing: manual time through core/timing.hpp (the helper `miniapp run` uses). Rates are counters
// ("FLOP/s", "bytes/s"), so compare.py from libbenchmark-tools reads the JSON output.
#include "app/kokkos_launch.hpp"
#include "core/text.hpp"
#include "bench/launch_overhead.hpp"
#include "core/compat.hpp"
#include "bench/config_cases.hpp"
#include "bench/kernel_bench.hpp"
#include "config/value.hpp"
#include "run/exit_code.hpp"
#include "run/rank_agreement.hpp"
#include "kernels/families.hpp"
#include "kernels/vendor_blas.hpp"
#include "core/backends.hpp"
#include "run/ceilings.hpp"
#include "core/device_info.hpp"

#include <CLI/CLI.hpp>
#include <Kokkos_Core.hpp>
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <new>
#include <iostream>
#include <string>
#include <vector>

namespace {

using namespace miniapp;

struct Options {
  std::string backend;
  std::vector<std::int64_t> sizes;
  bool quick = false;
  std::string config; // --miniapp-config: a run's config instead of every family and variant
  std::vector<std::string> overrides;
};

// The command line split by owner: argv[0] leads each list.
struct SplitArgs {
  std::vector<std::string> benchmark, kokkos, own;
};
SplitArgs split_args(int argc, char** argv) {
  SplitArgs s;
  s.benchmark = s.kokkos = {argv[0]};
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    (a.rfind("--benchmark_", 0) == 0 ? s.benchmark
     : a.rfind("--kokkos-", 0) == 0  ? s.kokkos
                                     : s.own)
        .push_back(a);
  }
  return s;
}

constexpr const char* kDebugNote =
    "a 'Library was built as DEBUG' warning is about Google Benchmark's own library (Debian's "
    "package is built so); it does not affect the timed kernels, which are miniapp's code "
    "compiled with this build's flags and timed by miniapp's own timer (manual time)";

// Parses miniapp-bench's own flags; returns -1 to go on, else the exit code (0 after --help).
int parse_options(std::vector<std::string> own, Options& o) {
  CLI::App app{"miniapp-bench: Google Benchmark over every miniapp kernel family and variant, "
               "with the ceilings (copy bandwidth, vendor GEMM, transfers, launch overhead) "
               "measured in the same process.",
               "miniapp-bench"};
  auto* backend = app.add_option("--miniapp-backend", o.backend,
                                 "Backend to run on: auto (" + default_backend() + "), " +
                                     join(compiled_backends(), ", "))
                      ->check(CLI::IsMember([] {
                        auto names = compiled_backends();
                        names.insert(names.begin(), "auto");
                        return names;
                      }()));
  auto* sizes =
      app.add_option(
             "--miniapp-sizes", o.sizes,
             "Matrix sizes N (N x N), comma-separated, e.g. 1024,4096 (default: per backend)")
          ->delimiter(',')
          ->check(CLI::Range(std::int64_t(1), std::int64_t(1) << 20));
  auto* quick = app.add_flag("--miniapp-quick", o.quick, "Small sizes only (a smoke test)");
  auto* config =
      app.add_option("--miniapp-config", o.config,
                     "Benchmark the cases `miniapp run FILE` runs, named by the case ids it "
                     "records, with the config's backend, warmup and validation, each against "
                     "the ceiling the run attaches (counters ceiling and pct_of_ceiling); a "
                     "config error exits 2 as in `miniapp run`")
          ->type_name("FILE")
          ->excludes(backend)
          ->excludes(sizes)
          ->excludes(quick);
  app.add_option("--miniapp-set", o.overrides,
                 "With --miniapp-config: override a config field, key.path=value (YAML value), "
                 "as `miniapp run --set` does")
      ->type_name("KEY=VALUE")
      ->needs(config);
  app.footer(
      "Google Benchmark's flags pass through, e.g. --benchmark_filter=REGEX,\n"
      "--benchmark_format=console|json|csv (stdout), --benchmark_out=FILE\n"
      "--benchmark_out_format=json|console|csv, --benchmark_repetitions=N,\n"
      "--benchmark_min_time=SECONDS, --benchmark_list_tests=true.\n"
      "With --miniapp-config, --benchmark_list_tests=true lists the case ids `miniapp run`\n"
      "records (each with /manual_time appended); the iterations are Google Benchmark's\n"
      "(--benchmark_min_time) instead of the config's repetitions, --benchmark_repetitions=N\n"
      "measures each case N times (as `miniapp run --rounds N`), and the exit code is\n"
      "`miniapp run`'s (3 a case failed, 4 a validation failed).\n"
      "A kernel's iterations are its launches, timed as `miniapp run` times them: in samples\n"
      "chaining the launches of 2 ms between two fences (counter launches_per_sample); the\n"
      "times are per launch.\n"
      "Kokkos flags of 3.4 and 4.x alike (--kokkos-num-threads=N or --kokkos-threads=N, ...)\n"
      "reach the linked Kokkos under the name it knows.\n"
      "Compare two runs: compare.py benchmarks A.json B.json (libbenchmark-tools;\n"
      "docs/performance.md).\n"
      "Note: " +
      std::string(kDebugNote) + ".");
  std::reverse(own.begin(), own.end()); // CLI11 takes the arguments in reverse order
  try {
    app.parse(own);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  return -1;
}

// An n x n (x n) case of the variant with the table's defaults (tile 0: the variant's default).
Case make_case(const Family& f, const Variant& v, Precision p, std::int64_t n, int tile) {
  Case c;
  c.family = f.name;
  c.variant = v.name;
  c.precision = p;
  c.m = c.n = c.k = n;
  c.tile = tile;
  c.alpha = f.alpha;
  c.beta = f.beta;
  resolve_parameters(c);
  return c;
}

void register_all(const Options& o, const std::string& backend) {
  const bool gpu = is_gpu_backend(backend);
  std::vector<std::int64_t> stream_sizes = o.sizes, gemm_sizes = o.sizes;
  if (o.sizes.empty()) {
    stream_sizes = o.quick ? std::vector<std::int64_t>{64, 256}
                   : gpu   ? std::vector<std::int64_t>{1024, 2048, 4096, 8192}
                           : std::vector<std::int64_t>{1024, 2048, 4096, 8192};
    gemm_sizes = o.quick ? std::vector<std::int64_t>{64, 128}
                 : gpu   ? std::vector<std::int64_t>{1024, 2048, 4096, 8192}
                         : std::vector<std::int64_t>{512, 1024, 2048};
  }
  // Each kernel benchmark is named by its case id, as `miniapp run` names the same case
  // ("matmul/tiled/float32/512x512x512/tile=16"; Google Benchmark appends "/manual_time").
  const BenchRules rules; // one untimed launch, validated up to the variant's bench size
  // Every family, variant, precision and tile the table's bench specs name.
  for (const Family& f : families())
    for (auto n : f.bench_compute_sizes ? gemm_sizes : stream_sizes)
      for (Precision p : {Precision::int32, Precision::float32, Precision::float64})
        for (const Variant& v : f.variants) {
          const auto& ps = v.bench.precisions;
          if (std::find(ps.begin(), ps.end(), p) == ps.end() ||
              (v.bench.max_n > 0 && n > v.bench.max_n))
            continue;
          for (int tile : v.bench.tiles) {
            const Case c = make_case(f, v, p, n, tile);
            add_kernel_benchmark(c, backend, rules);
            // The other compiled tile shapes (the first is the default, just added); float32 and
            // float64 only, the precisions they are tuned for.
            if (p == Precision::int32)
              continue;
            const std::vector<std::string> shapes = shape_names(c, backend);
            for (std::size_t i = 1; i < shapes.size(); ++i) {
              Case s = c;
              s.shape = shapes[i];
              add_kernel_benchmark(s, backend, rules);
            }
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
      ->Unit(benchmark::kMillisecond)
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
        ->Unit(benchmark::kMillisecond)
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
          ->Unit(benchmark::kMillisecond)
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
  SplitArgs args = split_args(argc, argv);
  Options opt;
  if (const int code = parse_options(args.own, opt); code >= 0)
    return code;
  std::vector<std::string> kokkos_args;
  if (!kokkos_initialize_args(args.kokkos, "miniapp-bench", kokkos_args))
    return 2;
  if (const std::string problem = thread_count_problem(args.kokkos); !problem.empty()) {
    std::cerr << "miniapp-bench: " << problem << "\n";
    return 2;
  }
  apply_thread_binding_policy();
  KokkosSession kokkos(kokkos_args);
  // Google Benchmark's flags are checked before a config's autotuning or any case runs.
  std::vector<char*> bench_argv;
  for (auto& a : args.benchmark)
    bench_argv.push_back(a.data());
  int bench_argc = int(bench_argv.size());
  benchmark::Initialize(&bench_argc, bench_argv.data());
  if (benchmark::ReportUnrecognizedArguments(bench_argc, bench_argv.data()))
    return 2;
  std::unique_ptr<ConfigBenchmarks> from_config; // --miniapp-config: its cases are registered
  if (!opt.config.empty()) {
    try {
      from_config = std::make_unique<ConfigBenchmarks>(opt.config, opt.overrides);
    } catch (const config::ConfigError& e) { // file:line:col, as `miniapp run` says it
      std::cerr << e.what() << std::endl;
      return kConfigError;
    } catch (const std::bad_alloc& e) {
      std::cerr << "miniapp-bench: " << failure_text(e) << " while expanding the config"
                << std::endl;
      return kRuntimeError;
    } catch (const std::exception& e) {
      std::cerr << "miniapp-bench: config: " << e.what() << std::endl;
      return kConfigError;
    }
    from_config->print_notes(std::cerr);
  }
  const std::string backend = from_config
                                  ? from_config->backend()
                                  : resolve_backend(opt.backend.empty() ? "auto" : opt.backend);
  const DeviceInfo dev = device_info(backend);
  benchmark::AddCustomContext("miniapp_backend", backend);
  benchmark::AddCustomContext("miniapp_device", dev.name);
  benchmark::AddCustomContext("miniapp_concurrency", std::to_string(dev.concurrency));
  benchmark::AddCustomContext("kokkos_version", compat::kokkos_version_string());
  benchmark::AddCustomContext("kokkos_backends", join(compiled_backends(), ","));
  benchmark::AddCustomContext("host_blas", kernels::host_blas_name());
  // Debian's libbenchmark is built without NDEBUG, so its header warns "Library was built as
  // DEBUG": that is Google Benchmark's own code, not the kernels timed here.
  benchmark::AddCustomContext("library_debug_note", kDebugNote);
  if (from_config) {
    benchmark::AddCustomContext("miniapp_config", opt.config);
    benchmark::AddCustomContext("miniapp_config_hash", from_config->config_hash());
    benchmark::AddCustomContext("miniapp_warmup", std::to_string(from_config->warmup()));
  } else {
    register_all(opt, backend);
  }
  benchmark::RunSpecifiedBenchmarks();
  release_prepared(); // device memory goes back before Kokkos::finalize
  benchmark::Shutdown();
  if (!from_config)
    return 0;
  from_config->print_ceilings(std::cerr);
  return from_config->exit_code();
}
