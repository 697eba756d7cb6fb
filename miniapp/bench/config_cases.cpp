#include "bench/config_cases.hpp"

#include "app/commands.hpp"
#include "app/load_plan.hpp"
#include "bench/kernel_bench.hpp"
#include "core/communicator.hpp"
#include "run/autotune.hpp"
#include "run/ceiling_cache.hpp"
#include "run/exit_code.hpp"

namespace miniapp {

ConfigBenchmarks::ConfigBenchmarks(const std::string& config,
                                   const std::vector<std::string>& overrides) {
  RunArgs args;
  args.config = config;
  args.overrides = overrides;
  args.ranks = 1; // one process: SUMMA's cases are the one-rank product, as `miniapp run` alone
  const Plan plan = load_plan(args, SingleRank());
  backend_ = plan.backend;
  config_hash_ = plan.config_hash;
  notes_ = plan.notes;
  warmup_ = plan.settings.warmup;
  ceilings_ = std::make_unique<MeasuredCeilings>(plan.backend);
  if (plan.settings.reuse_ceilings)
    ceilings_->reuse_from(CeilingCache(ceiling_cache_path(), ceiling_machine_key(plan.backend)));
  BenchRules rules;
  rules.warmup = plan.settings.warmup;
  rules.validate = plan.settings.validate;
  rules.rtol = plan.settings.rtol;
  rules.validate_any_size = true;
  rules.ceilings = ceilings_.get();
  for (Case c : plan.cases) {
    // 'auto' values are searched (or read from the autotune cache) before the benchmark is named,
    // as the run does before it records the case: the id carries the values that ran.
    std::exception_ptr setup_failure;
    try {
      c = autotune(c, backend_);
    } catch (...) { // reported by the case's benchmark, as the run reports it in the case's row
      setup_failure = std::current_exception();
    }
    add_kernel_benchmark(c, backend_, rules, setup_failure);
  }
}

void ConfigBenchmarks::print_notes(std::ostream& os) const {
  for (const auto& n : notes_)
    os << n << "\n";
}

void ConfigBenchmarks::print_ceilings(std::ostream& os) const {
  ceilings_->print(os);
}

int ConfigBenchmarks::exit_code() const {
  return miniapp::exit_code(kernel_benchmark_outcomes(), false);
}

} // namespace miniapp
