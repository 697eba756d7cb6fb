#include "config/config.hpp"

#include <fstream>
#include <regex>
#include <sstream>

namespace miniapp::config {

const std::vector<std::string>& family_names() {
  static const std::vector<std::string> f = {"matmul", "axpby", "tile_average", "tile_index"};
  return f;
}

const std::vector<std::string>& family_variants(const std::string& family) {
  static const std::map<std::string, std::vector<std::string>> v = {
      {"matmul", {"flat", "tiled", "tiled_rb", "vendor"}},
      {"axpby", {"flat", "mdrange", "team"}},
      {"tile_average", {"leader", "team_reduce"}},
      {"tile_index", {"team"}}};
  return v.at(family);
}

// Parameters whose value may be a list (a sweep).
const std::vector<std::string>& sweep_keys() {
  static const std::vector<std::string> k = {"precision", "variant",   "m",         "n",     "k",
                                             "tile",      "tile_cols", "team_size", "alpha", "beta",
                                             "in_place",  "pinned",    "seed"};
  return k;
}

namespace {

const std::vector<std::string> top_keys = {"name",   "description", "backend",    "precision",
                                           "warmup", "repetitions", "validation", "output",
                                           "pinned", "mpi",         "cases"};
const std::vector<std::string> case_only_keys = {"family", "init", "a", "b", "print", "zip"};

std::vector<std::string> case_keys() {
  std::vector<std::string> k = sweep_keys();
  k.insert(k.end(), case_only_keys.begin(), case_only_keys.end());
  return k;
}

int read_count(const Source& src, const YAML::Node& n, const std::string& what, int min, int max) {
  const auto v = read_int(src, n, what);
  if (v < min || v > max)
    src.fail(n, what + " must be between " + std::to_string(min) + " and " + std::to_string(max) +
                    ", got " + std::to_string(v));
  return int(v);
}

// key.path=value: descend maps (and list indices), then replace with the parsed value. Every
// node the override brings or creates is placed at its column of the --set text for messages.
void apply_override(Source& src, YAML::Node& root, const std::string& spec, int index) {
  const std::string label = "--set[" + std::to_string(index) + "] '" + spec + "'";
  const auto fail_at = [&](size_t col, const std::string& msg) -> void {
    throw ConfigError(label + ":1:" + std::to_string(col) + ": " + msg);
  };
  const auto eq = spec.find('=');
  if (eq == std::string::npos || eq == 0)
    fail_at(1, "expected key=value, e.g. repetitions=5 or cases.0.n=[64,128]");
  const std::string path = spec.substr(0, eq), value = spec.substr(eq + 1);
  const int value_col = int(eq) + 2;
  YAML::Node parsed;
  try {
    parsed = YAML::Load(value);
  } catch (const YAML::ParserException& e) {
    fail_at(value_col + e.mark.column, "YAML syntax error in the value: " + e.msg);
  }
  src.add_override(parsed, label, value_col);
  check_structure(src, parsed);
  struct Part {
    std::string name;
    size_t col;
  };
  std::vector<Part> parts;
  for (size_t start = 0;;) {
    const size_t dot = path.find('.', start);
    const std::string name = path.substr(start, dot == std::string::npos ? dot : dot - start);
    if (name.empty())
      fail_at(start + 1, "empty key in '" + path + "'");
    parts.push_back({name, start + 1});
    if (dot == std::string::npos)
      break;
    start = dot + 1;
  }
  static const std::regex digits("[0-9]+");
  YAML::Node cur = root;
  for (size_t i = 0; i < parts.size(); ++i) {
    const Part& p = parts[i];
    const bool last = i + 1 == parts.size();
    const std::string prefix = path.substr(0, p.col - 1);
    if (cur.IsSequence()) {
      if (!std::regex_match(p.name, digits) || p.name.size() > 9 ||
          std::stoul(p.name) >= cur.size())
        fail_at(p.col, "'" + p.name + "' is not an index of the list '" +
                           prefix.substr(0, prefix.size() - 1) + "' (it has " +
                           std::to_string(cur.size()) + " entries: 0 to " +
                           std::to_string(cur.size() - 1) + ")");
      const size_t idx = std::stoul(p.name);
      if (last)
        cur[idx] = parsed;
      else
        cur.reset(cur[idx]);
      continue;
    }
    if (!cur.IsMap() && !cur.IsNull())
      fail_at(p.col, "'" + prefix.substr(0, prefix.size() - 1) +
                         "' holds a single value, not a map; cannot set '" + path + "'");
    const YAML::Node lookup = cur; // const access does not insert
    const bool existed = cur.IsMap() && lookup[p.name];
    if (last)
      cur[p.name] = parsed;
    else if (!existed)
      cur[p.name] = YAML::Node(YAML::NodeType::Map);
    if (!existed)
      for (auto it = cur.begin(); it != cur.end(); ++it)
        if (it->first.Scalar() == p.name)
          src.add_override_node(it->first, label, int(p.col));
    if (!last) {
      cur.reset(cur[p.name]);
      if (!existed)
        src.add_override_node(cur, label, int(p.col));
    }
  }
}

Settings read_settings(const Source& src, const YAML::Node& root) {
  Settings s;
  s.name = read_string(src, require_key(src, root, "name", "the experiment"), "name");
  if (!std::regex_match(s.name, std::regex("[A-Za-z0-9_.-]+")))
    src.fail(root["name"], "name may hold only letters, digits, '_', '.' and '-' (it names the "
                           "results directory), got '" +
                               s.name + "'");
  if (root["description"])
    s.description = read_string(src, root["description"], "description");
  if (root["backend"])
    s.backend = read_string(src, root["backend"], "backend");
  if (root["precision"]) {
    s.precision = read_string(src, root["precision"], "precision");
    if (s.precision != "int32" && s.precision != "float32" && s.precision != "float64")
      src.fail(root["precision"],
               "precision must be int32, float32 or float64, got '" + s.precision + "'");
  }
  if (root["warmup"])
    s.warmup = read_count(src, root["warmup"], "warmup", 0, 1000000);
  if (root["repetitions"])
    s.repetitions = read_count(src, root["repetitions"], "repetitions", 1, 1000000);
  if (root["pinned"])
    s.pinned = read_bool(src, root["pinned"], "pinned");
  if (const YAML::Node v = root["validation"]) {
    require_map(src, v, "validation");
    check_keys(src, v, {"enabled", "rtol"}, "validation");
    if (v["enabled"])
      s.validate = read_bool(src, v["enabled"], "validation.enabled");
    if (v["rtol"]) {
      s.rtol = read_double(src, v["rtol"], "validation.rtol");
      if (s.rtol < 0 || s.rtol >= 1)
        src.fail(v["rtol"], "validation.rtol must be in [0, 1) (0 = the stated per-kernel bound)");
    }
  }
  if (const YAML::Node o = root["output"]) {
    require_map(src, o, "output");
    check_keys(src, o, {"directory", "formats", "print"}, "output");
    if (o["directory"])
      s.output_directory = read_string(src, o["directory"], "output.directory");
    if (o["print"])
      s.print = read_bool(src, o["print"], "output.print");
    if (const YAML::Node f = o["formats"]) {
      s.formats.clear();
      const std::vector<YAML::Node> items =
          f.IsSequence() ? std::vector<YAML::Node>(f.begin(), f.end()) : std::vector<YAML::Node>{f};
      for (const auto& item : items) {
        const std::string fmt = read_string(src, item, "output.formats");
        if (fmt != "csv" && fmt != "json")
          src.fail(item, "output.formats entries must be csv or json, got '" + fmt + "'");
        s.formats.push_back(fmt);
      }
      if (s.formats.empty())
        src.fail(f, "output.formats must name at least one of csv, json");
    }
  }
  if (const YAML::Node m = root["mpi"]) {
    require_map(src, m, "mpi");
    check_keys(src, m, {"grid", "panel"}, "mpi");
    if (const YAML::Node g = m["grid"]) {
      if (!g.IsSequence() || g.size() != 2)
        src.fail(g, "mpi.grid must be a list of two positive integers [P, Q]");
      s.grid_p = read_count(src, g[0], "mpi.grid[0]", 1, 1 << 20);
      s.grid_q = read_count(src, g[1], "mpi.grid[1]", 1, 1 << 20);
    }
    if (m["panel"])
      s.panel = read_count(src, m["panel"], "mpi.panel", 1, 1 << 20);
  }
  return s;
}

CaseSpec read_case(const Source& src, const YAML::Node& node, size_t index) {
  const std::string ctx = "cases[" + std::to_string(index) + "]";
  require_map(src, node, ctx);
  check_keys(src, node, case_keys(), ctx);
  CaseSpec spec;
  spec.node = node;
  const YAML::Node fam = require_key(src, node, "family", ctx);
  spec.family = read_string(src, fam, ctx + ".family");
  const auto& fams = family_names();
  if (std::find(fams.begin(), fams.end(), spec.family) == fams.end()) {
    const std::string hint = closest(spec.family, fams);
    src.fail(fam, "unknown family '" + spec.family +
                      "' (known: matmul, axpby, tile_average, "
                      "tile_index" +
                      (hint.empty() ? ")" : "; did you mean '" + hint + "'?)"));
  }
  for (const auto& key : sweep_keys()) {
    const YAML::Node v = node[key];
    if (!v)
      continue;
    if (v.IsSequence()) {
      if (v.size() == 0)
        src.fail(v, ctx + "." + key + " is an empty list");
      for (auto it = v.begin(); it != v.end(); ++it)
        spec.params[key].push_back(*it);
    } else {
      spec.params[key].push_back(v);
    }
  }
  if (const YAML::Node z = node["zip"]) {
    require_map(src, z, ctx + ".zip");
    spec.zip_node = z;
    size_t len = 0;
    for (auto it = z.begin(); it != z.end(); ++it) {
      const std::string key = it->first.Scalar();
      const auto& sk = sweep_keys();
      if (std::find(sk.begin(), sk.end(), key) == sk.end()) {
        const std::string hint = closest(key, sk);
        src.fail(it->first, "'" + key + "' cannot be zipped (sweepable keys only" +
                                (hint.empty() ? ")" : "; did you mean '" + hint + "'?)"));
      }
      if (node[key])
        src.fail(it->first, "'" + key + "' is both in zip and in the case; keep one");
      if (!it->second.IsSequence() || it->second.size() == 0)
        src.fail(it->second, ctx + ".zip." + key + " must be a non-empty list");
      if (len && it->second.size() != len)
        src.fail(it->second, ctx + ".zip." + key + " has " + std::to_string(it->second.size()) +
                                 " values but the zip's first list has " + std::to_string(len));
      len = it->second.size();
      spec.zip_keys.push_back(key);
      spec.zip_values.emplace_back(it->second.begin(), it->second.end());
    }
  }
  if (node["init"]) {
    const std::string init = read_string(src, node["init"], ctx + ".init");
    if (init != "random" && init != "iota" && init != "ones" && init != "explicit")
      src.fail(node["init"],
               ctx + ".init must be random, iota, ones or explicit, got '" + init + "'");
  }
  spec.has_a = bool(node["a"]); // assigning a missing node would throw
  spec.has_b = bool(node["b"]);
  if (spec.has_a)
    spec.a = node["a"];
  if (spec.has_b)
    spec.b = node["b"];
  return spec;
}

void read_experiment(const Source& src, ExperimentConfig& cfg) {
  check_keys(src, cfg.root, top_keys, "the experiment");
  cfg.settings = read_settings(src, cfg.root);
  const YAML::Node cases = require_key(src, cfg.root, "cases", "the experiment");
  if (!cases.IsSequence() || cases.size() == 0)
    src.fail(cases, "cases must be a non-empty list of kernel cases");
  for (size_t i = 0; i < cases.size(); ++i)
    cfg.cases.push_back(read_case(src, cases[i], i));
}

} // namespace

ExperimentConfig parse_config(const std::string& label, const std::string& text,
                              const std::vector<std::string>& overrides) {
  ExperimentConfig cfg;
  cfg.source = std::make_shared<Source>(label);
  cfg.text = text;
  cfg.overrides = overrides;
  Source& src = *cfg.source;
  try {
    cfg.root = load_document(src, text);
    require_map(src, cfg.root, "the config");
    for (size_t i = 0; i < overrides.size(); ++i)
      apply_override(src, cfg.root, overrides[i], int(i + 1));
    read_experiment(src, cfg);
  } catch (const YAML::Exception& e) {
    // A safety net: yaml-cpp errors not caught above still name a position, never abort.
    src.fail_at(e.mark, e.msg);
  }
  return cfg;
}

ExperimentConfig load_config(const std::string& path, const std::vector<std::string>& overrides) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw ConfigError(path + ":1:1: cannot open the config file");
  std::stringstream ss;
  ss << in.rdbuf();
  return parse_config(path, ss.str(), overrides);
}

} // namespace miniapp::config
