// libFuzzer target: a site's own job template (the input, as `--template FILE` reads it) through
// check_job_template and render_jobscript, with a profile and a request whose every free-text
// value is hostile ($(...), quotes, @@placeholders@@). A ConfigError is the expected answer to a
// bad template; any other exception, a crash, a leak, a hang or unbounded memory is a finding, and
// so is a rendered script with a carriage return or a NUL (docs/testing.md).
#include "config/yaml_strict.hpp"
#include "jobs/jobscript.hpp"
#include "jobs/system_profile.hpp"

#include <cstdlib>

namespace {

// Every free-text field of a site profile, hostile.
const char* const hostile_profile_yaml =
    "name: hostile\n"
    "description: \"$(touch PWNED) `touch PWNED` '\\\" @@SITE@@\"\n"
    "backend: openmp\n"
    "cores_per_node: 4\n"
    "launcher_options: [\"$(touch PWNED)\", \"'\\\"\"]\n"
    "sbatch_options: [\"--comment=$(touch PWNED)\"]\n"
    "cpu_bind: \"$(touch PWNED)\"\n"
    "modules: [\"m'$(touch PWNED)\"]\n"
    "environment:\n"
    "  HOSTILE: \"@@CONFIG@@ $(touch PWNED)\"\n"
    "setup: [\"echo setup\"]\n";

const miniapp::jobs::SystemProfile& hostile_profile() {
  static const miniapp::jobs::SystemProfile profile =
      miniapp::jobs::parse_system_profile("fuzz-system.yaml", hostile_profile_yaml);
  return profile;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  miniapp::jobs::JobRequest req;
  req.config = "/work/$(touch PWNED)/c'.yaml";
  req.experiment = "fuzz";
  req.miniapp = "/opt/miniapp/bin/miniapp";
  req.command = "miniapp jobscript '$(touch PWNED)'\n@@SITE@@";
  req.overrides = {"description=\"$(touch PWNED)\""};
  req.output_dir = "/runs/%j-$(touch PWNED)";
  req.template_file = "fuzz-template.sh";
  req.template_text.assign(reinterpret_cast<const char*>(data), size);
  try {
    const std::string script = miniapp::jobs::render_jobscript(hostile_profile(), req);
    if (script.find('\r') != std::string::npos || script.find('\0') != std::string::npos)
      std::abort(); // check_job_template let a CR or NUL through
  } catch (const miniapp::config::ConfigError&) {
  }
  return 0;
}
