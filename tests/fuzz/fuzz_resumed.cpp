// libFuzzer target: a results directory given to `miniapp run --resume DIR` (results/resume.hpp):
// the bytes written as DIR/results.json and read back against the plan of a small sweep, as they
// are, and again with their config hash replaced by the plan's where they are a JSON object with
// metadata (so mutated seeds reach the rows rather than stop at the hash). A ConfigError (exit 2,
// naming the file) is the expected answer to a bad input; any other exception (a JSON type error
// escaping the reader: exit 3 with the library's message), a crash, a leak, a hang, unbounded
// memory, or a state that keeps a row the plan does not have is a finding (docs/testing.md).
#include "config/config.hpp"
#include "fuzz_input.hpp"
#include "plan/plan.hpp"
#include "results/resume.hpp"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <string>

namespace {

// The sweep of the seeds (tests/fuzz/seeds/resumed: its results.json as `miniapp run` wrote it).
constexpr const char* kConfig = R"(name: resumed
backend: serial
precision: float32
warmup: 0
repetitions: 2
cases:
  - family: axpby
    variant: [flat, team]
    n: [8, 16]
)";

const miniapp::Plan& plan() {
  static const miniapp::Plan p =
      miniapp::make_plan(miniapp::config::parse_config("resumed.yaml", kConfig, {}));
  return p;
}

std::string scratch_dir() {
  static const std::string dir = miniapp::fuzz::scratch_dir("resumed");
  return dir;
}

void resume_from(const std::string& text) {
  const std::string dir = scratch_dir();
  miniapp::fuzz::write_file(dir + "/results.json", text);
  try {
    const miniapp::ResumeState s = miniapp::read_resume_state(dir, plan(), 1, 1);
    if (s.kept.size() + s.to_run.size() != plan().cases.size())
      std::abort(); // a case kept and run, or neither
    for (const std::size_t i : s.to_run)
      if (i >= plan().cases.size())
        std::abort();
    miniapp::plan_to_resume(plan(), s);
  } catch (const miniapp::config::ConfigError&) {
  }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  resume_from(text);
  nlohmann::json doc = nlohmann::json::parse(text, nullptr, false);
  if (doc.is_object() && doc.contains("metadata") && doc["metadata"].is_object()) {
    doc["metadata"]["config_hash"] = plan().config_hash;
    resume_from(doc.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
  }
  return 0;
}
