// libFuzzer target: a study's state file (study-state.json) through the loader `study status`,
// `resubmit` and `collect` use (jobs/study_state.hpp), as if it were /fuzz/study/study-state.json.
// A ConfigError is the expected answer to a bad file; any other exception, a crash, a leak, a hang,
// unbounded memory, or a loaded state the loader promises never to return (a count out of range,
// a path outside the study's directory, a control byte in a text, an odd job id) is a finding.
#include "config/config.hpp"
#include "config/limits.hpp"
#include "core/sinks.hpp"
#include "jobs/study_state.hpp"

#include <cstdint>
#include <cstdlib>
#include <string>

namespace {

constexpr const char* kDir = "/fuzz/study";

bool inside_study(const std::string& path) {
  const std::string dir = std::string(kDir) + "/";
  return path.size() > dir.size() && path.compare(0, dir.size(), dir) == 0 &&
         path.find("/../") == std::string::npos && path.find("/./") == std::string::npos;
}

bool plain_text(const std::string& s) {
  return miniapp::path_problem(s).empty() && s.size() <= miniapp::config::limits::kMaxStringBytes;
}

bool job_ids(const std::vector<std::string>& ids) {
  if (ids.size() > miniapp::config::limits::kMaxStudyJobs)
    return false;
  for (const auto& id : ids)
    if (id.empty() || id.size() > 64 || !plain_text(id) || id.find('/') != std::string::npos)
      return false;
  return true;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const auto st = miniapp::jobs::parse_study_state(text, std::string(kDir) + "/study-state.json");
    if (st.points.size() > miniapp::config::limits::kMaxStudyPoints ||
        !inside_study(st.collect_script) || !job_ids(st.collect_jobs) || !plain_text(st.study) ||
        !plain_text(st.study_file) || !plain_text(st.scheduler))
      std::abort();
    for (const auto& p : st.points) {
      const std::int64_t ranks = std::int64_t(p.point.nodes) * p.point.ranks_per_node;
      if (p.point.nodes < 1 || p.point.ranks_per_node < 1 ||
          ranks > miniapp::config::limits::kMaxJobRanks || !inside_study(p.script) ||
          !inside_study(p.output_dir) || !plain_text(p.system_name) ||
          !plain_text(p.point.system) || !job_ids(p.jobs))
        std::abort();
    }
  } catch (const miniapp::config::ConfigError&) {
  }
  return 0;
}
