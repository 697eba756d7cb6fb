// libFuzzer target: a results file (results/load.cpp), read as `miniapp compare` reads one:
// the bytes as a results.json (the size and nesting limits, then compare::run_from_json) and as a
// results.csv (compare::run_from_csv), then the run compared with itself and written as markdown
// and CSV, and written back as the JSON `miniapp report` hands the plot script (a CSV cell that
// is not UTF-8 once made that JSON throw). A std::runtime_error naming the file is the expected
// answer to a bad input; any other exception (a JSON type error escaping the loader), a crash, a
// leak, a hang or unbounded memory is a finding (docs/testing.md).
#include "compare/tables.hpp"
#include "results/metadata.hpp"
#include "results/run_json.hpp"

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace {

// compare's tables are linear in the rows, with a large constant (each row becomes a line of every
// table): the loader reads every row of an input, and the comparison takes the first
// kComparedRows, enough for every path through it (repeated cases, runs of one family or many)
// while an input of 100000 short rows stays well inside the 10 s a unit may take in this build.
constexpr std::size_t kComparedRows = 1000;

void compare_with_itself(miniapp::compare::Run run) {
  if (run.rows.size() > kComparedRows)
    run.rows.resize(kComparedRows);
  const miniapp::compare::Comparison c = miniapp::compare::compare_runs({run, run}, {});
  miniapp::compare::to_markdown(c);
  miniapp::compare::to_csv(c);
  miniapp::json_text(miniapp::compare::to_results_json(run));
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  namespace compare = miniapp::compare;
  try {
    compare_with_itself(
        compare::run_from_json(compare::parse_results_text(text, "results.json"), "results.json"));
  } catch (const std::runtime_error&) {
  }
  try {
    compare_with_itself(compare::run_from_csv(text, "results.csv"));
  } catch (const std::runtime_error&) {
  }
  return 0;
}
