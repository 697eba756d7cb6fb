// libFuzzer target: a system profile (YAML text) through the profile parser and job-script
// rendering, as `miniapp jobscript` does. Leading "# KEY: VALUE" lines (fuzz_input.hpp) fill the
// request: set (a --set override, repeatable), name, config, output, results, time, nodes, ranks.
// A ConfigError is the expected answer to a bad profile or request; any other exception, a crash,
// a leak, a hang or unbounded memory is a finding (docs/testing.md).
#include "config/yaml_strict.hpp"
#include "fuzz_input.hpp"
#include "jobs/jobscript.hpp"
#include "jobs/system_profile.hpp"

#include <charconv>

namespace {

int small_int(const std::string& s) {
  int v = 0;
  std::from_chars(s.data(), s.data() + s.size(), v);
  return v;
}

miniapp::jobs::JobRequest request_from(const miniapp::fuzz::Input& in) {
  miniapp::jobs::JobRequest req;
  req.config = "/work/experiment.yaml";
  req.experiment = "fuzz";
  req.miniapp = "/opt/miniapp/bin/miniapp";
  req.command = "miniapp jobscript fuzz.yaml --system fuzz";
  for (const auto& [key, value] : in.options) {
    if (key == "set")
      req.overrides.push_back(value);
    else if (key == "name")
      req.experiment = value;
    else if (key == "config")
      req.config = value;
    else if (key == "output")
      req.output_dir = value;
    else if (key == "results")
      req.results_dir = value;
    else if (key == "time")
      req.time = value;
    else if (key == "nodes")
      req.nodes = small_int(value);
    else if (key == "ranks")
      req.ranks_per_node = small_int(value);
  }
  return req;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const miniapp::fuzz::Input in = miniapp::fuzz::read_input(data, size);
  try {
    const auto profile = miniapp::jobs::parse_system_profile("fuzz-system.yaml", in.text);
    const std::string script = miniapp::jobs::render_jobscript(profile, request_from(in));
    (void)script;
  } catch (const miniapp::config::ConfigError&) {
  }
  return 0;
}
