#include "jobs/study_state.hpp"

#include "config/config.hpp"
#include "config/limits.hpp"
#include "config/read_text.hpp"
#include "core/files.hpp"
#include "core/sinks.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>

namespace miniapp::jobs {

using json = nlohmann::json;

namespace {

// The state is a file like any input: anyone may have edited it. A count outside what `study
// submit` writes (a node count of 2^30 made `collect`'s scaling plot loop for ever; 0 gave an
// efficiency of -nan) is refused, naming the file.
int read_count(const json& point, const char* key, std::size_t index, const std::string& path) {
  const json& v = point.at(key);
  const std::int64_t max = config::limits::kMaxJobCount;
  if (!v.is_number_integer() || v.get<std::int64_t>() < 1 || v.get<std::int64_t>() > max)
    throw config::ConfigError(path + ": point " + std::to_string(index + 1) + "'s " + key + " " +
                              for_terminal(v.dump()) + " is not a count from 1 to " +
                              std::to_string(max) + "; the state was not written by `miniapp " +
                              "study submit`: remove the study's directory and submit again");
  return int(v.get<std::int64_t>());
}

// A path the state names for the study to read, write or submit (a job script, a results
// directory): it must lie under the directory holding the state, the study's, or `resubmit` would
// hand sbatch any script and `collect` import any directory. Compared as written (absolute and
// normal), so "dir/../elsewhere" is elsewhere.
std::string inside(const json& holder, const char* key, const std::string& what,
                   const std::string& dir, const std::string& path) {
  const std::string value = holder.at(key).get<std::string>();
  const std::string normal = std::filesystem::path(value).lexically_normal().string();
  if (value.empty() || value[0] != '/' || normal.size() <= dir.size() + 1 ||
      normal.compare(0, dir.size() + 1, dir + "/") != 0)
    throw config::ConfigError(path + ": " + what + " '" + for_terminal(value) +
                              "' lies outside the study's directory " + for_terminal(dir) +
                              "; the state was not written by `miniapp study submit` for this "
                              "study: remove the study's directory and submit again");
  return value;
}

} // namespace

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
  std::error_code ec;
  const std::string dir =
      std::filesystem::absolute(path, ec).lexically_normal().parent_path().string();
  if (ec)
    throw config::ConfigError(path + ": cannot tell the study's directory (" + ec.message() + ")");
  try {
    const json doc = json::parse(config::read_text_file(path, "study state"));
    StudyState st;
    st.study = doc.at("study").get<std::string>();
    st.study_file = doc.at("study_file").get<std::string>();
    st.scheduler = doc.at("scheduler").get<std::string>();
    st.weak = doc.at("scaling").get<std::string>() == "weak";
    const json& points = doc.at("points");
    if (!points.is_array() || points.size() > config::limits::kMaxStudyPoints)
      throw config::ConfigError(path + ": \"points\" is not a list of at most " +
                                std::to_string(config::limits::kMaxStudyPoints) +
                                " points; the state was not written by `miniapp study submit`");
    for (const json& p : points) {
      const std::size_t i = st.points.size();
      const std::string point = "point " + std::to_string(i + 1) + "'s ";
      PointState ps;
      ps.point.system = p.at("system").get<std::string>();
      ps.point.nodes = read_count(p, "nodes", i, path);
      ps.point.ranks_per_node = read_count(p, "ranks_per_node", i, path);
      if (std::int64_t(ps.point.nodes) * ps.point.ranks_per_node > config::limits::kMaxJobRanks)
        throw config::ConfigError(path + ": " + point + "nodes x ranks_per_node is more than " +
                                  std::to_string(config::limits::kMaxJobRanks) +
                                  " ranks; the state was not written by `miniapp study submit`");
      ps.system_name = p.at("system_name").get<std::string>();
      ps.script = inside(p, "script", point + "script", dir, path);
      ps.output_dir = inside(p, "output_dir", point + "output_dir", dir, path);
      ps.jobs = p.at("jobs").get<std::vector<std::string>>();
      st.points.push_back(std::move(ps));
    }
    st.collect_script = inside(doc.at("collect"), "script", "the collect script", dir, path);
    st.collect_jobs = doc.at("collect").at("jobs").get<std::vector<std::string>>();
    return st;
  } catch (const json::exception& e) {
    throw config::ConfigError(path + ": not a study state file: " + e.what());
  }
}

} // namespace miniapp::jobs
