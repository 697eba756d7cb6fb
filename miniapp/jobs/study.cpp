#include "jobs/study.hpp"

#include "config/limits.hpp"
#include "config/read_text.hpp"
#include "config/schema.hpp"
#include "config/yaml_strict.hpp"
#include "jobs/system_profile.hpp"
#include "kernels/families.hpp"

#include <algorithm>
#include <filesystem>
#include <sstream>
#include <stdexcept>

namespace miniapp::jobs {

using config::Source;

namespace {

constexpr int kMaxCount = config::limits::kMaxJobCount; // nodes, ranks per node
const std::vector<std::string> kKeys = {"name",  "description",    "config",  "systems",
                                        "nodes", "ranks_per_node", "scaling", "rounds",
                                        "time",  "directory"};

// Every string of a study is one line (it becomes a path or a file name), as in profiles.
using config::read_line;

// A list of counts, each from 1 to `max`, without repeats.
std::vector<int> read_counts(const Source& src, const YAML::Node& n, const std::string& what,
                             int max) {
  if (!n.IsSequence() || n.size() == 0)
    src.fail(n, what + " must be a non-empty list of counts, e.g. [1, 2, 4]");
  std::vector<int> out;
  for (std::size_t i = 0; i < n.size(); ++i) {
    const std::int64_t v = config::read_int(src, n[i], what);
    if (v < 1 || v > max)
      src.fail(n[i], what + " " + std::to_string(v) + " is out of range (1 to " +
                         std::to_string(max) + ")");
    if (std::find(out.begin(), out.end(), int(v)) != out.end())
      src.fail(n[i], what + " " + std::to_string(v) + " is listed twice");
    out.push_back(int(v));
  }
  return out;
}

std::string relative_to(const std::string& file, const std::string& path) {
  const auto slash = file.rfind('/');
  if (path.empty() || path[0] == '/' || slash == std::string::npos)
    return path;
  return std::filesystem::path(file.substr(0, slash + 1) + path).lexically_normal().string();
}

} // namespace

Study parse_study(const std::string& label, const std::string& text) {
  Source src(label);
  const YAML::Node root = config::load_document(src, text);
  config::require_map(src, root, "a study");
  config::check_keys(src, root, kKeys, "the study");
  Study s;
  s.file = label;
  s.name = read_line(src, config::require_key(src, root, "name", "the study"), "name");
  if (s.name.find_first_not_of(
          "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") != std::string::npos)
    src.fail(root["name"], "name must be letters, digits, '.', '_' or '-' (it names files)");
  if (root["description"])
    read_line(src, root["description"], "description");
  s.config = relative_to(
      label, read_line(src, config::require_key(src, root, "config", "the study"), "config"));
  const YAML::Node systems = config::require_key(src, root, "systems", "the study");
  if (!systems.IsSequence() || systems.size() == 0)
    src.fail(systems, "systems must be a non-empty list of system profiles, e.g. [local]");
  for (std::size_t i = 0; i < systems.size(); ++i) {
    const std::string v = read_line(src, systems[i], "systems");
    // a name, or a file relative to the study (as find_system_profile tells them apart)
    const bool is_path = v.find('/') != std::string::npos ||
                         (v.size() > 5 && v.compare(v.size() - 5, 5, ".yaml") == 0);
    s.systems.push_back(is_path ? relative_to(label, v) : v);
  }
  s.nodes =
      read_counts(src, config::require_key(src, root, "nodes", "the study"), "nodes", kMaxCount);
  s.ranks_per_node = read_counts(src, config::require_key(src, root, "ranks_per_node", "the study"),
                                 "ranks_per_node", kMaxCount);
  const std::uint64_t points =
      std::uint64_t(s.systems.size()) * s.nodes.size() * s.ranks_per_node.size();
  if (points > config::limits::kMaxStudyPoints)
    src.fail(root, "the study has " + std::to_string(points) +
                       " points (systems x nodes x "
                       "ranks_per_node); at most " +
                       std::to_string(config::limits::kMaxStudyPoints));
  if (root["scaling"]) {
    const std::string v = config::read_string(src, root["scaling"], "scaling");
    if (v != "strong" && v != "weak")
      src.fail(root["scaling"],
               "scaling '" + v + "' is not strong or weak" +
                   (config::closest(v, {"strong", "weak"}).empty()
                        ? std::string()
                        : "; did you mean '" + config::closest(v, {"strong", "weak"}) + "'?"));
    s.scaling = v == "weak" ? Scaling::weak : Scaling::strong;
  }
  if (root["rounds"]) {
    const std::int64_t v = config::read_int(src, root["rounds"], "rounds");
    if (v < 1 || v > config::limits::kMaxRounds)
      src.fail(root["rounds"], "rounds " + std::to_string(v) + " is out of range (1 to " +
                                   std::to_string(config::limits::kMaxRounds) + ")");
    s.rounds = int(v);
  }
  if (root["time"]) {
    s.time = read_line(src, root["time"], "time");
    if (!valid_slurm_time(s.time))
      src.fail(root["time"],
               "time '" + s.time + "' is not a Slurm time (MM, HH:MM:SS or D-HH:MM:SS)");
  }
  const auto slash = label.rfind('/');
  s.directory = root["directory"]
                    ? relative_to(label, read_line(src, root["directory"], "directory"))
                    : (slash == std::string::npos ? "" : label.substr(0, slash + 1)) + s.name;
  // Each point's results directory lies in the study's and is fixed: status, collect and a
  // resubmitted job find the point's run there. A job script turns '%j' into its job id, so the
  // job wrote where none of them looked ("done, results none yet"; a resubmission started over).
  if (s.directory.find("%j") != std::string::npos)
    src.fail(root["directory"] ? root["directory"] : root["name"],
             "the study's directory '" + s.directory +
                 "' holds '%j': a study's results directories are fixed (status, collect and "
                 "resubmitted jobs find each point's run there), so no job id may choose them");
  return s;
}

namespace {

nlohmann::json study_key_schema(const std::string& key, int max_count) {
  using json = nlohmann::json;
  const json line = config::line_schema();
  const json counts = {{"type", "array"},
                       {"minItems", 1},
                       {"uniqueItems", true},
                       {"items", {{"type", "integer"}, {"minimum", 1}, {"maximum", max_count}}}};
  if (key == "name") {
    json name = line;
    name["pattern"] = "^[A-Za-z0-9._-]+$";
    name["description"] = "names the study's files: letters, digits, '.', '_' and '-'";
    return name;
  }
  if (key == "description" || key == "config")
    return line;
  if (key == "directory") {
    json directory = line;
    // no control character (line_schema's "not") and no job id choosing it: it is fixed
    directory["not"] = {{"anyOf", {line["not"], {{"pattern", "%j"}}}}};
    return directory;
  }
  if (key == "systems")
    return {{"type", "array"}, {"minItems", 1}, {"items", line}};
  if (key == "nodes" || key == "ranks_per_node")
    return counts;
  if (key == "scaling")
    return {{"type", "string"}, {"enum", {"strong", "weak"}}};
  if (key == "rounds")
    return {{"type", "integer"},
            {"minimum", 1},
            {"maximum", config::limits::kMaxRounds},
            {"description", "each job runs the case list this many times (miniapp run --rounds)"}};
  if (key == "time")
    return slurm_time_schema();
  throw std::logic_error("schema: no rule for the study key '" + key + "'");
}

} // namespace

nlohmann::json study_schema() {
  nlohmann::json props = nlohmann::json::object();
  for (const auto& key : kKeys)
    props[key] = study_key_schema(key, kMaxCount);
  return {{"$schema", "http://json-schema.org/draft-07/schema#"},
          {"title", "miniapp study file"},
          {"description", "A scaling study of miniapp (docs/jobs.md, \"Studies\"); generated by "
                          "`miniapp schema study`."},
          {"type", "object"},
          {"additionalProperties", false},
          {"required", {"name", "config", "systems", "nodes", "ranks_per_node"}},
          {"properties", props}};
}

Study load_study(const std::string& path) {
  return parse_study(path, config::read_text_file(path, "study"));
}

std::vector<StudyPoint> study_points(const Study& s) {
  std::vector<StudyPoint> out;
  for (const auto& sys : s.systems)
    for (int n : s.nodes)
      for (int r : s.ranks_per_node)
        out.push_back({sys, n, r});
  return out;
}

std::vector<std::string> weak_scaling_overrides(const config::ExperimentConfig& cfg,
                                                parallel::GridShape grid) {
  std::vector<std::string> out;
  if (grid.ranks() == 1)
    return out;
  for (std::size_t i = 0; i < cfg.cases.size(); ++i) {
    const config::CaseSpec& c = cfg.cases[i];
    for (const std::string& key : {"m", "n"})
      if (std::find(c.zip_keys.begin(), c.zip_keys.end(), key) != c.zip_keys.end())
        config::fail(c.pos, "weak scaling grows m and n with the process grid; '" + key +
                                "' swept in a zip group cannot be grown (sweep it as a list)");
    const auto n_it = c.params.find("n");
    if (n_it == c.params.end())
      continue; // the plan refuses the case
    const auto m_it = c.params.find("m");
    const std::vector<config::Value>& ms = m_it != c.params.end() ? m_it->second : n_it->second;
    // m and k default to n; grown apart, each becomes a list of its own, and lists multiply.
    const Family* fam = find_family(c.family.as_string());
    const bool reads_k = fam && std::any_of(fam->variants.begin(), fam->variants.end(),
                                            [](const Variant& v) { return v.reads(Param::k); });
    const bool k_default = reads_k && !c.params.count("k");
    if (n_it->second.size() > 1 && (m_it == c.params.end() || k_default))
      config::fail(n_it->second.front().pos,
                   "weak scaling grows m and n apart and keeps k: with n swept, write m" +
                       std::string(k_default ? " and k" : "") +
                       " in this case (they default to n) or sweep the sizes in a zip group");
    if (k_default) // each rank's product keeps the depth it had at one rank
      out.push_back("cases." + std::to_string(i) + ".k=" + n_it->second.front().text);
    for (const auto& [key, values, factor] :
         {std::tuple{"m", &ms, grid.p}, std::tuple{"n", &n_it->second, grid.q}}) {
      std::ostringstream o;
      o << "cases." << i << "." << key << "=[";
      for (std::size_t j = 0; j < values->size(); ++j) {
        const config::Value& v = (*values)[j];
        if (!std::holds_alternative<std::int64_t>(v.v))
          config::fail(v.pos, std::string(key) + " must be a whole number for weak scaling");
        o << (j ? ", " : "") << v.as_int() * factor;
      }
      o << "]";
      out.push_back(o.str());
    }
  }
  return out;
}

} // namespace miniapp::jobs
