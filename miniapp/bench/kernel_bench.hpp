#pragma once
// One kernel benchmark of miniapp-bench: a case named by its id, prepared once (allocation,
// inputs, the checked run and its validation, as `miniapp run` does before timing), then timed
// by Google Benchmark's iterations through core/timing.hpp, the helper `miniapp run` uses.
#include "core/case.hpp"
#include "core/result.hpp"
#include "run/ceilings.hpp"

#include <exception>
#include <string>
#include <vector>

namespace miniapp {

// How a benchmark prepares and times its case: miniapp-bench's own defaults, or a config's
// settings (bench/config_cases.hpp), so that the benchmark times the case as `miniapp run` would.
struct BenchRules {
  // Untimed launches before the timed ones (and core/timing.hpp's time rule). The timed ones are
  // Google Benchmark's iterations, as many as --benchmark_min_time asks: a fixed count would add
  // "/iterations:N" to the name, which then would no longer be the case id.
  int warmup = 1;
  bool validate = true;
  double rtol = 0; // 0: the per-kernel bound of docs/kernels.md
  // Validate at any size (a config's `validate: true`); else up to the variant's
  // bench.validate_max_n, beyond which the float64 host reference costs minutes.
  bool validate_any_size = false;
  // The ceilings `miniapp run` attaches to each row, measured in this process and reported as
  // counters of the benchmark ("ceiling", "pct_of_ceiling"); nullptr: none.
  MeasuredCeilings* ceilings = nullptr;
};

// Registers the benchmark `c.id()` for case c on backend. A setup_failure (the autotuner threw,
// say) is reported by the benchmark, as unsupported or as an error, instead of running it.
void add_kernel_benchmark(const Case& c, const std::string& backend, const BenchRules& rules,
                          std::exception_ptr setup_failure = nullptr);

// Each prepared case's status (ok, invalid, unsupported, error), in the order they ran: the run's
// exit-code rule (run/exit_code.hpp) reads them.
const std::vector<CaseResult>& kernel_benchmark_outcomes();

// Frees the last prepared case (its device memory goes back before Kokkos::finalize).
void release_prepared();

} // namespace miniapp
