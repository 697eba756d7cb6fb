#include "jobs/study_state.hpp"

#include "config/config.hpp"
#include "config/read_text.hpp"
#include "core/files.hpp"

#include <nlohmann/json.hpp>

namespace miniapp::jobs {

using json = nlohmann::json;

std::string study_state_path(const Study& s) {
  return (s.directory.empty() ? std::string(".") : s.directory) + "/study-state.json";
}

void save_study_state(const std::string& path, const StudyState& st) {
  json points = json::array();
  for (const PointState& p : st.points)
    points.push_back({{"system", p.point.system},
                      {"system_name", p.system_name},
                      {"nodes", p.point.nodes},
                      {"ranks_per_node", p.point.ranks_per_node},
                      {"script", p.script},
                      {"output_dir", p.output_dir},
                      {"jobs", p.jobs}});
  const json doc = {{"study", st.study},
                    {"study_file", st.study_file},
                    {"scheduler", st.scheduler},
                    {"scaling", st.weak ? "weak" : "strong"},
                    {"points", points},
                    {"collect", {{"script", st.collect_script}, {"jobs", st.collect_jobs}}}};
  write_file_atomically(path, doc.dump(2) + "\n");
}

StudyState load_study_state(const std::string& path) {
  if (!path_exists(path))
    throw config::ConfigError(path + ": no such file: the study has not been submitted "
                                     "(miniapp study submit STUDY)");
  try {
    const json doc = json::parse(config::read_text_file(path, "study state"));
    StudyState st;
    st.study = doc.at("study").get<std::string>();
    st.study_file = doc.at("study_file").get<std::string>();
    st.scheduler = doc.at("scheduler").get<std::string>();
    st.weak = doc.at("scaling").get<std::string>() == "weak";
    for (const json& p : doc.at("points")) {
      PointState ps;
      ps.point.system = p.at("system").get<std::string>();
      ps.point.nodes = p.at("nodes").get<int>();
      ps.point.ranks_per_node = p.at("ranks_per_node").get<int>();
      ps.system_name = p.at("system_name").get<std::string>();
      ps.script = p.at("script").get<std::string>();
      ps.output_dir = p.at("output_dir").get<std::string>();
      ps.jobs = p.at("jobs").get<std::vector<std::string>>();
      st.points.push_back(std::move(ps));
    }
    st.collect_script = doc.at("collect").at("script").get<std::string>();
    st.collect_jobs = doc.at("collect").at("jobs").get<std::vector<std::string>>();
    return st;
  } catch (const json::exception& e) {
    throw config::ConfigError(path + ": not a study state file: " + e.what());
  }
}

} // namespace miniapp::jobs
