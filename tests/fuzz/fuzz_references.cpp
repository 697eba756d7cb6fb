// libFuzzer target: a performance references file (YAML text) through the references loader, then
// each entry checked against one row of every kernel family, as `compare --references` and
// `run --references` do (docs/history.md). A ConfigError is the expected answer to a bad file; any
// other exception, a crash, a leak, a hang, unbounded memory, or a loaded entry holding a control
// byte (a NUL would cut a glob short) is a finding (docs/testing.md).
#include "config/yaml_strict.hpp"
#include "core/sinks.hpp"
#include "fuzz_input.hpp"
#include "results/references.hpp"

#include <cstdlib>

namespace {

miniapp::compare::Row row_of(const char* family, const char* variant) {
  miniapp::compare::Row row;
  row.family = family;
  row.variant = variant;
  row.precision = "float32";
  row.fields["m"] = row.fields["n"] = 64; // case parameters are typed fields of the row
  row.fields["k"] = std::string(family) == "matmul" ? 64 : 0;
  row.status = "ok";
  row.valid = "true";
  row.time_median = 1e-3;
  row.gflops = row.gbs = 10;
  row.ceiling = "copy bandwidth";
  row.ceiling_unit = "GB/s";
  row.ceiling_value = 20;
  row.case_id = miniapp::references::case_id(row);
  return row;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const miniapp::fuzz::Input in = miniapp::fuzz::read_input(data, size);
  try {
    const auto refs = miniapp::references::parse_references("fuzz-references.yaml", in.text);
    for (const auto& e : refs.entries)
      if (!miniapp::path_problem(e.pattern).empty() || !miniapp::path_problem(e.backend).empty() ||
          !miniapp::path_problem(e.device).empty())
        std::abort(); // a control byte passed the loader
    miniapp::compare::Run run;
    run.backend = "openmp";
    run.device = "CPU";
    for (const auto& row : {row_of("axpby", "flat"), row_of("matmul", "tiled"),
                            row_of("tile_average", "leader"), row_of("transpose", "naive")}) {
      const auto c = miniapp::references::check(refs, run, row);
      (void)miniapp::references::describe(c, row.case_id);
    }
  } catch (const miniapp::config::ConfigError&) {
  }
  return 0;
}
