// libFuzzer target: an experiment config (YAML text, plus "# set: KEY=VALUE" lines as --set
// overrides; fuzz_input.hpp) through the loader and the plan, as `miniapp validate` does without
// a device. A config error (ConfigError) is the expected answer to a bad input; any other
// exception, a crash, a leak, a hang or unbounded memory is a finding (docs/testing.md).
#include "config/config.hpp"
#include "fuzz_input.hpp"
#include "plan/plan.hpp"

#include <sstream>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const miniapp::fuzz::Input in = miniapp::fuzz::read_input(data, size);
  std::vector<std::string> overrides;
  for (const auto& [key, value] : in.options)
    if (key == "set")
      overrides.push_back(value);
  try {
    const auto cfg = miniapp::config::parse_config("fuzz.yaml", in.text, overrides);
    const miniapp::Plan plan = miniapp::make_plan(cfg);
    std::ostringstream out;
    miniapp::print_plan(out, plan);
  } catch (const miniapp::config::ConfigError&) {
  }
  return 0;
}
