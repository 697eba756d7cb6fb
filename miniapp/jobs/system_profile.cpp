#include "jobs/system_profile.hpp"
#include "jobs/sbatch_guard.hpp"
#include "core/environment.hpp"
#include "core/backend_names.hpp"

#include "config/limits.hpp"
#include "config/schema.hpp"
#include "config/yaml_strict.hpp"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <cctype>
#include <cstring>
#include <filesystem>
#include <sstream>
#include <stdexcept>

namespace miniapp::jobs {

bool SystemProfile::gpu() const {
  return is_gpu_backend(backend);
}

using config::ConfigError;
using config::Source;

namespace {

// clang-format off
const std::vector<std::string> kKeys = {
    "name",     "description",   "backend",          "partition",      "account",
    "qos",      "gpus_per_node", "cores_per_node",   "max_nodes",      "ranks_per_node",
    "time",     "launcher",      "launcher_options", "sbatch_options", "gpu_bind",
    "cpu_bind", "modules",       "environment",      "setup",          "miniapp",
    "template", "references",    "gflops",           "gbs",            "hint"};
// clang-format on
const std::vector<std::string> kBackends = {"cuda", "hip", "openmp"};
const std::vector<std::string> kLaunchers = {"srun", "mpirun"};
// Characters besides letters and digits: in a profile's name (it names files), and in Slurm's
// names of partitions, accounts and QOS.
constexpr const char* kNameChars = "._-";
constexpr const char* kSlurmNameChars = "._,-";
// gflops, gbs: one rank's rates, above 0 and below this.
constexpr double kMaxRate = 1e9;

int read_count(const Source& src, const YAML::Node& n, const std::string& what, int min) {
  const std::int64_t v = config::read_int(src, n, what);
  if (v < min || v > config::limits::kMaxJobCount)
    src.fail(n, what + " must be between " + std::to_string(min) + " and " +
                    std::to_string(config::limits::kMaxJobCount));
  return int(v);
}

// Every string of a profile is one line (config::read_line): a NUL would cut it short where the
// job or the system reads it (a file checked here, another one used there); tabs only where the
// line is shell code (`setup`).
using config::read_line;

std::vector<std::string> read_lines(const Source& src, const YAML::Node& n, const std::string& what,
                                    bool tabs = false) {
  if (!n.IsSequence())
    src.fail(n, what + " must be a list of strings, e.g. [a, b]");
  std::vector<std::string> out;
  for (std::size_t i = 0; i < n.size(); ++i)
    out.push_back(read_line(src, n[i], what + "[" + std::to_string(i) + "]", tabs));
  return out;
}

std::string read_choice(const Source& src, const YAML::Node& n, const std::string& what,
                        const std::vector<std::string>& choices) {
  const std::string s = config::read_string(src, n, what);
  if (std::find(choices.begin(), choices.end(), s) == choices.end()) {
    std::string list;
    for (const auto& c : choices)
      list += (list.empty() ? "" : ", ") + c;
    const std::string hint = config::closest(s, choices);
    src.fail(n, what + " must be one of " + list + ", got '" + s + "'" +
                    (hint.empty() ? "" : " (did you mean '" + hint + "'?)"));
  }
  return s;
}

// Character-class checks instead of std::regex, whose matcher recurses per character and
// overflows the stack on long values.
bool only_chars(const std::string& s, const char* extra) {
  if (s.empty())
    return false;
  for (char c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)) && !std::strchr(extra, c))
      return false;
  return true;
}

bool variable_name(const std::string& s) {
  return only_chars(s, "_") && !std::isdigit(static_cast<unsigned char>(s[0]));
}

// 1 to `digits` decimal digits, value below `below` (0 = any).
bool number_field(const std::string& s, std::size_t digits, int below) {
  if (s.empty() || s.size() > digits || s.find_first_not_of("0123456789") != std::string::npos)
    return false;
  return below == 0 || std::stoi(s) < below;
}

} // namespace

bool valid_slurm_time(const std::string& t) {
  std::string days, rest = t;
  if (const auto dash = t.find('-'); dash != std::string::npos) {
    days = t.substr(0, dash);
    rest = t.substr(dash + 1);
    if (!number_field(days, 5, 0))
      return false;
  }
  std::vector<std::string> f;
  std::stringstream ss(rest);
  for (std::string part; std::getline(ss, part, ':');)
    f.push_back(part);
  if (!rest.empty() && rest.back() == ':')
    return false;
  // MM, MM:SS, HH:MM:SS: the first field any size; D-HH, D-HH:MM, D-HH:MM:SS: hours below 24.
  // The fields after the first (minutes, seconds) are below 60.
  if (f.empty() || f.size() > 3 ||
      !(days.empty() ? number_field(f[0], 7, 0) : number_field(f[0], 2, 24)))
    return false;
  return std::all_of(f.begin() + 1, f.end(),
                     [](const std::string& x) { return number_field(x, 2, 60); });
}

SystemProfile parse_system_profile(const std::string& label, const std::string& text) {
  Source src(label);
  const YAML::Node root = config::load_document(src, text);
  config::require_map(src, root, "a system profile");
  config::check_keys(src, root, kKeys, "the system profile");
  SystemProfile p;
  p.file = label;
  p.name = read_line(src, config::require_key(src, root, "name", "the system profile"), "name");
  if (!only_chars(p.name, kNameChars))
    src.fail(root["name"], "name must be letters, digits, '.', '_' or '-' (it names files)");
  if (root["description"])
    p.description = read_line(src, root["description"], "description");
  p.backend = read_choice(src, config::require_key(src, root, "backend", "the system profile"),
                          "backend", kBackends);
  for (const char* key : {"partition", "account", "qos"})
    if (root[key]) {
      const std::string v = read_line(src, root[key], key);
      if (!only_chars(v, kSlurmNameChars))
        src.fail(root[key],
                 std::string(key) + " '" + v + "' has characters Slurm names do not use");
      (key == std::string("partition") ? p.partition
       : key == std::string("account") ? p.account
                                       : p.qos) = v;
    }
  p.cores_per_node =
      read_count(src, config::require_key(src, root, "cores_per_node", "the system profile"),
                 "cores_per_node", 1);
  if (root["gpus_per_node"])
    p.gpus_per_node = read_count(src, root["gpus_per_node"], "gpus_per_node", 0);
  if (p.gpu() && p.gpus_per_node < 1)
    src.fail(root["gpus_per_node"] ? root["gpus_per_node"] : root["backend"],
             "backend " + p.backend + " runs one rank per GPU: gpus_per_node must be at least 1");
  if (root["max_nodes"])
    p.max_nodes = read_count(src, root["max_nodes"], "max_nodes", 1);
  for (const auto& [key, rate] : {std::pair{"gflops", &p.gflops}, std::pair{"gbs", &p.gbs}})
    if (root[key]) { // one rank's rates, for the time estimate (plan/estimate.hpp)
      *rate = config::read_double(src, root[key], key);
      if (!(*rate > 0 && *rate < kMaxRate))
        src.fail(root[key], std::string(key) + " must be a rate above 0 (one rank's)");
    }
  if (root["ranks_per_node"]) {
    p.ranks_per_node = read_count(src, root["ranks_per_node"], "ranks_per_node", 1);
    if (p.gpu() && p.ranks_per_node > p.gpus_per_node)
      src.fail(root["ranks_per_node"], "ranks_per_node " + std::to_string(p.ranks_per_node) +
                                           " exceeds gpus_per_node " +
                                           std::to_string(p.gpus_per_node) + " (one rank per GPU)");
    if (p.ranks_per_node > p.cores_per_node)
      src.fail(root["ranks_per_node"],
               "ranks_per_node exceeds cores_per_node " + std::to_string(p.cores_per_node));
  }
  if (root["time"]) {
    p.time = read_line(src, root["time"], "time");
    if (!valid_slurm_time(p.time))
      src.fail(root["time"],
               "time '" + p.time + "' is not a Slurm time (MM, HH:MM:SS or D-HH:MM:SS)");
  }
  if (root["launcher"])
    p.launcher = read_choice(src, root["launcher"], "launcher", kLaunchers);
  if (root["hint"])
    p.hint = read_choice(src, root["hint"], "hint", hint_values());
  if (root["launcher_options"])
    p.launcher_options = read_lines(src, root["launcher_options"], "launcher_options");
  if (root["sbatch_options"]) {
    p.sbatch_options = read_lines(src, root["sbatch_options"], "sbatch_options");
    for (std::size_t i = 0; i < p.sbatch_options.size(); ++i) {
      const std::string& o = p.sbatch_options[i];
      const YAML::Node n = root["sbatch_options"][i];
      if (o.rfind("--", 0) != 0 || o.size() < 3)
        src.fail(n,
                 "sbatch_options entries are long options like --constraint=a100, got '" + o + "'");
      const GeneratedOption g = generated_sbatch_option(o);
      if (!g.option.empty())
        src.fail(n,
                 (g.word.rfind(g.option, 0) == 0 ? g.option
                                                 : "'" + g.word + "' is " + g.option + ", which") +
                     " is written by miniapp jobscript (use the profile key or the command-line "
                     "option instead)");
    }
  }
  if (const YAML::Node g = root["gpu_bind"]) // a quoted "": no --gpu-bind, Slurm's default
    p.gpu_bind = g.IsScalar() && g.Tag() == "!" && g.Scalar().empty()
                     ? std::string()
                     : read_line(src, g, "gpu_bind");
  if (root["cpu_bind"])
    p.cpu_bind = read_line(src, root["cpu_bind"], "cpu_bind");
  if (root["modules"])
    p.modules = read_lines(src, root["modules"], "modules");
  if (root["environment"]) {
    const YAML::Node env = root["environment"];
    config::require_map(src, env, "environment");
    for (auto it = env.begin(); it != env.end(); ++it) {
      const std::string key = it->first.Scalar();
      if (!variable_name(key))
        src.fail(it->first, "environment: '" + key + "' is not a variable name");
      p.environment.emplace_back(key, read_line(src, it->second, "environment." + key));
    }
  }
  if (root["setup"])
    p.setup = read_lines(src, root["setup"], "setup", true);
  if (root["miniapp"])
    p.miniapp = read_line(src, root["miniapp"], "miniapp");
  if (root["template"]) {
    p.template_file = read_line(src, root["template"], "template");
    const auto slash = label.rfind('/');
    if (p.template_file.empty())
      src.fail(root["template"], "template must name a job template file");
    if (p.template_file[0] != '/' && slash != std::string::npos)
      p.template_file = label.substr(0, slash + 1) + p.template_file;
  }
  if (root["references"]) { // a references file the job's run is checked against
    p.references = read_line(src, root["references"], "references");
    const auto slash = label.rfind('/');
    if (p.references[0] != '/' && slash != std::string::npos)
      p.references = label.substr(0, slash + 1) + p.references;
  }
  return p;
}

const std::vector<std::string>& hint_values() {
  static const std::vector<std::string> values = {"nomultithread", "multithread"};
  return values;
}

namespace {

using json = nlohmann::json;

// "^[A-Za-z0-9._-]+$": letters, digits and `extra`, as only_chars accepts them.
std::string chars_pattern(const std::string& extra) {
  std::string p = "^[A-Za-z0-9";
  for (char c : extra)
    p +=
        (c == '-' || c == ']' || c == '\\' || c == '^') ? std::string("\\") + c : std::string(1, c);
  return p + "]+$";
}

json words(const std::vector<std::string>& w) {
  return {{"type", "string"}, {"enum", w}};
}

json count(int min) {
  return {{"type", "integer"}, {"minimum", min}, {"maximum", config::limits::kMaxJobCount}};
}

json profile_key_schema(const std::string& key) {
  const json line = config::line_schema();
  const auto list_of = [](const json& item) { return json{{"type", "array"}, {"items", item}}; };
  const auto chars = [&line](const char* extra, const std::string& description) {
    json s = line;
    s["pattern"] = chars_pattern(extra);
    s["description"] = description;
    return s;
  };
  if (key == "name")
    return chars(kNameChars, "names files: letters, digits, '.', '_' and '-'");
  if (key == "partition" || key == "account" || key == "qos")
    return chars(kSlurmNameChars, "a Slurm name: letters, digits, '.', '_', ',' and '-'");
  if (key == "backend")
    return words(kBackends);
  if (key == "launcher")
    return words(kLaunchers);
  if (key == "hint")
    return words(hint_values());
  if (key == "gpus_per_node")
    return count(0);
  if (key == "cores_per_node" || key == "max_nodes" || key == "ranks_per_node")
    return count(1);
  if (key == "time")
    return slurm_time_schema();
  if (key == "gflops" || key == "gbs")
    return {{"type", "number"}, {"exclusiveMinimum", 0}, {"exclusiveMaximum", kMaxRate}};
  if (key == "launcher_options" || key == "modules")
    return list_of(line);
  if (key == "setup") // shell code: tabs allowed
    return list_of(config::line_schema(true));
  if (key == "sbatch_options") {
    json option = line;
    option["pattern"] = "^--.";
    option["description"] = "a long option like --constraint=a100; the options miniapp "
                            "jobscript writes are refused in every form sbatch reads (the "
                            "loader checks them)";
    return list_of(option);
  }
  if (key == "environment")
    return {{"type", "object"},
            {"propertyNames", {{"pattern", "^[A-Za-z_][A-Za-z0-9_]*$"}}},
            {"additionalProperties", line}};
  if (key == "gpu_bind")
    return {{"anyOf", {line, {{"const", ""}}}},
            {"description", "srun --gpu-bind; \"\" leaves Slurm's default"}};
  if (key == "description" || key == "cpu_bind" || key == "miniapp" || key == "template" ||
      key == "references")
    return line;
  throw std::logic_error("schema: no rule for the system profile key '" + key + "'");
}

} // namespace

json slurm_time_schema() {
  json time = config::line_schema();
  time["pattern"] = "^([0-9]+-)?[0-9]+(:[0-9]+){0,2}$";
  time["description"] =
      "a Slurm time: MM, HH:MM:SS or D-HH:MM:SS (the loader checks each field's range)";
  return time;
}

json system_profile_schema() {
  json props = json::object();
  for (const auto& key : kKeys)
    props[key] = profile_key_schema(key);
  std::vector<std::string> gpu_backends;
  for (const auto& b : kBackends)
    if (is_gpu_backend(b))
      gpu_backends.push_back(b);
  return {
      {"$schema", "http://json-schema.org/draft-07/schema#"},
      {"title", "miniapp system profile"},
      {"description", "A system profile of miniapp jobscript (docs/jobs.md, \"System "
                      "profiles\"); generated by `miniapp schema profile`."},
      {"type", "object"},
      {"additionalProperties", false},
      {"required", {"name", "backend", "cores_per_node"}},
      {"properties", props},
      // a GPU backend runs one rank per GPU
      {"if", {{"properties", {{"backend", words(gpu_backends)}}}, {"required", {"backend"}}}},
      {"then", {{"required", {"gpus_per_node"}}, {"properties", {{"gpus_per_node", count(1)}}}}}};
}

SystemProfile load_system_profile(const std::string& path) {
  // Bounded read: a huge file (or /dev/zero) is refused before it is read whole.
  return parse_system_profile(path, config::read_text_file(path, "system profile"));
}

std::vector<std::string> system_profile_dirs(const std::string& program_path) {
  std::vector<std::string> dirs;
  if (const char* env = env::value("MINIAPP_SYSTEMS_DIR"))
    dirs.emplace_back(env);
  const auto slash = program_path.rfind('/');
  if (slash != std::string::npos)
    dirs.push_back(program_path.substr(0, slash) + "/../share/miniapp/jobscripts/systems");
  dirs.emplace_back(MINIAPP_SOURCE_DIR "/jobscripts/systems");
  return dirs;
}

std::string find_system_profile(const std::string& name_or_path, const std::string& program_path) {
  const auto ends_with = [](const std::string& s, const std::string& suffix) {
    return s.size() >= suffix.size() &&
           s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
  };
  if (name_or_path.find('/') != std::string::npos || ends_with(name_or_path, ".yaml") ||
      ends_with(name_or_path, ".yml"))
    return name_or_path;
  std::string tried;
  for (const auto& d : system_profile_dirs(program_path)) {
    const std::string f = d + "/" + name_or_path + ".yaml";
    if (std::error_code ec; std::filesystem::exists(f, ec)) // (not opened: a FIFO would wait)
      return f;
    tried += "\n  " + f;
  }
  throw ConfigError("system profile '" + name_or_path + "' not found; looked for:" + tried);
}

} // namespace miniapp::jobs
