#pragma once
// miniapp-bench --miniapp-config FILE: the cases `miniapp run FILE` would run, through the same
// plan loader (app/load_plan.hpp), each benchmark named by the case id the run records, warmed up
// and validated as the config says and reported against the ceilings the run measures. The
// config's `repetitions` give way to Google Benchmark's iterations (--benchmark_min_time).
#include "run/ceilings.hpp"

#include <memory>
#include <ostream>
#include <string>
#include <vector>

namespace miniapp {

class ConfigBenchmarks {
public:
  // Loads `config` with its --set items and registers one benchmark per case of the plan. Throws
  // config::ConfigError ("file:line:col: message", as `miniapp run` reports it) before any work.
  ConfigBenchmarks(const std::string& config, const std::vector<std::string>& overrides);
  const std::string& backend() const { return backend_; }
  const std::string& config_hash() const { return config_hash_; }
  int warmup() const { return warmup_; }
  // The plan's notes and, after the benchmarks ran, the ceilings measured (as `miniapp run`
  // prints them), on `os`: stdout is the benchmark report's.
  void print_notes(std::ostream& os) const;
  void print_ceilings(std::ostream& os) const;
  // `miniapp run`'s exit code for the cases that ran (run/exit_code.hpp): 3 error, 4 invalid.
  int exit_code() const;

private:
  std::string backend_, config_hash_;
  int warmup_ = 1;
  std::vector<std::string> notes_;
  std::unique_ptr<MeasuredCeilings> ceilings_;
};

} // namespace miniapp
