#include "config/config.hpp"

#include "config/limits.hpp"
#include "config/settings.hpp"
#include "config/yaml_strict.hpp"
#include "core/case_fields.hpp"
#include "kernels/families.hpp"

#include <algorithm>
#include <cstdlib>
#include <map>

namespace miniapp::config {

namespace {

// A shallow copy of a map or list (the children stay shared) with one entry replaced or added,
// placed where the original is for messages.
YAML::Node copy_with(Source& src, const YAML::Node& container, const YAML::Node& key,
                     std::int64_t index, const YAML::Node& child) {
  YAML::Node copy(container.IsSequence() ? YAML::NodeType::Sequence : YAML::NodeType::Map);
  if (container.IsSequence()) {
    std::int64_t i = 0;
    for (auto it = container.begin(); it != container.end(); ++it, ++i)
      copy.push_back(i == index ? child : *it);
  } else {
    bool replaced = false;
    if (container.IsMap())
      for (auto it = container.begin(); it != container.end(); ++it) {
        const bool hit = it->first.Scalar() == key.Scalar();
        copy.force_insert(it->first, hit ? child : it->second);
        replaced = replaced || hit;
      }
    if (!replaced)
      copy.force_insert(key, child);
  }
  src.add_copy(copy, container);
  return copy;
}

// Replaces one entry of a container an override made (never one of the document's, which an
// alias may share): a map's key keeps its node, a list its order.
void replace_entry(YAML::Node& container, const YAML::Node& key, std::int64_t index,
                   const YAML::Node& child) {
  if (container.IsSequence()) {
    const YAML::Node& entries = container; // const access: looks up, never inserts
    std::vector<YAML::Node> after;
    for (std::size_t i = entries.size(); i-- > std::size_t(index) + 1;) {
      after.push_back(entries[i]);
      container.remove(i);
    }
    container.remove(std::size_t(index));
    container.push_back(child);
    for (std::size_t i = after.size(); i-- > 0;)
      container.push_back(after[i]);
    return;
  }
  container.remove(key); // by identity, when the key is there
  container.force_insert(key, child);
}

// The maps and lists the overrides copied, by their path ("" the root, "cases.0" a case): no
// alias shares them, so later overrides change them in place. Copying each container on the path
// again for every --set made n items cost n^2 time and memory (each copy holds yaml-cpp's node
// set of the whole document).
using OwnedContainers = std::map<std::string, YAML::Node>;

// key.path=value: descend maps (and list indices), then set the parsed value. Every map and list
// of the document on the path is copied rather than changed in place: one reached through a YAML
// alias is shared with the alias's other uses, and a --set must change only the place it names.
// Every node the override brings or creates is placed at its column of the --set text for
// messages.
void apply_override(Source& src, YAML::Node& root, const std::string& spec, int index,
                    OwnedContainers& owned, std::vector<std::string>& notes) {
  const std::string label = "--set[" + std::to_string(index) + "] '" + spec + "'";
  const auto fail_at = [&](size_t col, const std::string& msg) -> void {
    throw ConfigError(label + ":1:" + std::to_string(col) + ": " + msg);
  };
  if (spec.size() > limits::kMaxFileBytes)
    throw ConfigError("--set[" + std::to_string(index) + "]:1:1: the override is " +
                      std::to_string(spec.size()) + " bytes; the limit is " +
                      std::to_string(limits::kMaxFileBytes) + " (see docs/config.md)");
  const YAML::Mark bad = first_invalid_utf8(spec);
  if (!bad.is_null())
    fail_at(size_t(bad.pos) + 1, "the text is not valid UTF-8 (an invalid byte here)");
  const auto eq = spec.find('=');
  if (eq == std::string::npos || eq == 0)
    fail_at(1, "expected key=value, e.g. repetitions=5 or cases.0.n=[64,128]");
  const std::string path = spec.substr(0, eq), value = spec.substr(eq + 1);
  const int value_col = int(eq) + 2;
  YAML::Node parsed;
  try {
    parsed = parse_one_document(value);
  } catch (const TextError& e) {
    // On the value's first line the column; below it (a value with newlines) the offset.
    fail_at(value_col + std::max(0, e.mark.line == 0 ? e.mark.column : e.mark.pos),
            e.message.rfind("YAML syntax error: ", 0) == 0
                ? "YAML syntax error in the value: " + e.message.substr(19)
                : e.message);
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
  // Down: the containers on the path (checked, nothing changed yet).
  struct Step {
    YAML::Node container;
    YAML::Node key;          // maps: the key (a new node when the path creates it)
    std::int64_t index = -1; // lists: the index
    std::string where;       // the container's path, indices in plain decimal
  };
  std::vector<Step> steps;
  YAML::Node cur = root;
  std::string where;
  YAML::Node before; // the value the path holds before the override (when it holds one)
  bool had_value = false;
  for (size_t i = 0; i < parts.size(); ++i) {
    const Part& p = parts[i];
    const bool last = i + 1 == parts.size();
    const std::string prefix = path.substr(0, p.col - 1);
    const YAML::Node lookup = cur; // const access does not insert
    const std::string container_path = where;
    where += (where.empty() ? "" : ".");
    if (cur.IsSequence()) {
      // Digits only (leading zeros allowed); nine at most, so the value cannot overflow.
      std::int64_t idx = -1;
      if (!p.name.empty() && p.name.size() <= 9 &&
          std::all_of(p.name.begin(), p.name.end(), [](char c) { return c >= '0' && c <= '9'; }))
        idx = std::int64_t(std::strtoll(p.name.c_str(), nullptr, 10));
      if (idx < 0 || idx >= std::int64_t(cur.size()))
        fail_at(p.col, "'" + p.name + "' is not an index of the list '" +
                           prefix.substr(0, prefix.size() - 1) + "' (it has " +
                           std::to_string(cur.size()) + " entries: 0 to " +
                           std::to_string(cur.size() - 1) + ")");
      steps.push_back({cur, YAML::Node(), idx, container_path});
      where += std::to_string(idx);
      if (!last) {
        cur.reset(lookup[std::size_t(idx)]);
      } else {
        before.reset(lookup[std::size_t(idx)]);
        had_value = true;
      }
      continue;
    }
    if (!cur.IsMap() && !cur.IsNull())
      fail_at(p.col, "'" + prefix.substr(0, prefix.size() - 1) +
                         "' holds a single value, not a map; cannot set '" + path + "'");
    YAML::Node key(p.name);
    bool existed = false;
    if (cur.IsMap())
      for (auto it = cur.begin(); it != cur.end(); ++it)
        if (it->first.Scalar() == p.name) {
          key.reset(it->first);
          existed = true;
        }
    if (!existed) {
      src.add_override_node(key, label, int(p.col));
    }
    steps.push_back({cur, key, -1, container_path});
    where += p.name;
    if (last && existed) {
      before.reset(lookup[p.name]);
      had_value = true;
    }
    if (!last) {
      if (existed) {
        cur.reset(lookup[p.name]);
      } else {
        cur.reset(YAML::Node(YAML::NodeType::Map));
        src.add_override_node(cur, label, int(p.col));
      }
    }
  }
  // Up: each container on the path copied with its entry replaced, the root last; or, at the
  // first one an earlier override copied, that one changed in place (those above hold it already).
  // (reset, not '=': assigning to a YAML::Node rewrites the node it refers to, here `parsed`.)
  if (had_value && YAML::Dump(before) == YAML::Dump(parsed))
    notes.push_back(label + ": note: '" + path + "' already holds " + YAML::Dump(parsed) +
                    "; the override changes nothing");
  YAML::Node child = parsed;
  for (size_t i = steps.size(); i-- > 0;) {
    Step& step = steps[i];
    const auto mine = owned.find(step.where);
    if (mine != owned.end() && mine->second.is(step.container)) {
      replace_entry(step.container, step.key, step.index, child);
      return;
    }
    child.reset(copy_with(src, step.container, step.key, step.index, child));
    owned[step.where].reset(child);
  }
  root.reset(child);
}

// One sweep value, read strictly as its key's type (the read_* messages name the key).
Value read_param(const Source& src, const Family& family, const std::string& key,
                 const YAML::Node& n) {
  Value v;
  v.pos = src.position(n);
  v.text = n.IsScalar() ? n.Scalar() : "";
  if (key == "variant") {
    const std::string name = read_string(src, n, key);
    if (!family.find_variant(name)) {
      const auto vars = family.variant_names();
      std::string known;
      for (const auto& x : vars)
        known += (known.empty() ? "" : ", ") + x;
      const std::string hint = closest(name, vars);
      src.fail(n, "unknown " + family.name + " variant '" + name + "' (known: " + known +
                      (hint.empty() ? ")" : "; did you mean '" + hint + "'?)"));
    }
    v.v = name;
  } else if (const CaseField* f = find_case_field(key)) { // read as its row's type
    if (f->takes_auto && is_plain_scalar(n, "auto"))
      v.v = Auto{};
    else if (f->type == FieldType::number)
      v.v = read_double(src, n, key);
    else if (f->type == FieldType::boolean)
      v.v = read_bool(src, n, key);
    else if (f->type == FieldType::integer)
      v.v = read_int(src, n, key);
    else // precision, or a shape from kernels/matmul_shapes.hpp (the plan checks them)
      v.v = read_string(src, n, key);
  }
  return v;
}

// An explicit matrix as written; its shape is the plan's to check (it knows the sizes).
Matrix read_matrix(const Source& src, const YAML::Node& n, const std::string& what) {
  Matrix m;
  m.pos = src.position(n);
  m.is_list = n.IsSequence();
  if (m.is_list)
    for (auto it = n.begin(); it != n.end(); ++it) {
      MatrixRow row;
      row.pos = src.position(*it);
      row.is_list = it->IsSequence();
      if (row.is_list)
        for (auto x = it->begin(); x != it->end(); ++x) {
          Value v;
          v.pos = src.position(*x);
          v.v = read_double(src, *x, what);
          v.text = x->Scalar();
          row.values.push_back(v);
        }
      m.rows.push_back(row);
    }
  return m;
}

// A case's zip: lists paired element by element (docs/config.md, "Sweeps").
void read_zip(const Source& src, const YAML::Node& node, const YAML::Node& z,
              const std::string& ctx, const Family& family, CaseSpec& spec) {
  require_map(src, z, ctx + ".zip");
  if (z.size() == 0)
    src.fail(z,
             ctx + ".zip is empty; give it the lists to pair (e.g. zip: {m: [8, 16], n: [4, 8]})");
  size_t len = 0;
  std::vector<std::string> keys;
  std::vector<std::vector<Value>> values; // per key; the spec takes them only when all are read
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
    keys.push_back(key);
    values.emplace_back();
    for (auto x = it->second.begin(); x != it->second.end(); ++x)
      values.back().push_back(read_param(src, family, key, *x));
  }
  spec.zip_keys = keys;
  spec.zip_values = values;
}

CaseSpec read_case(const Source& src, const YAML::Node& node, size_t index) {
  const std::string ctx = "cases[" + std::to_string(index) + "]";
  require_map(src, node, ctx);
  check_keys(src, node, case_keys(), ctx);
  CaseSpec spec;
  spec.pos = src.position(node);
  const YAML::Node fam = require_key(src, node, "family", ctx);
  spec.family.v = read_string(src, fam, ctx + ".family");
  spec.family.pos = src.position(fam);
  const std::string& family_name = spec.family.as_string();
  if (!find_family(family_name)) {
    const auto fams = family_names();
    std::string known;
    for (const auto& f : fams)
      known += (known.empty() ? "" : ", ") + f;
    const std::string hint = closest(family_name, fams);
    src.fail(fam, "unknown family '" + family_name + "' (known: " + known +
                      (hint.empty() ? ")" : "; did you mean '" + hint + "'?)"));
  }
  // With its family known, each key of the case is read on its own; one that cannot be read is
  // left out and named in spec.unread, so the plan makes no check that depends on it.
  const auto read_key = [&](const std::string& key, const auto& read) {
    if (!src.attempt(read))
      spec.unread.insert(key);
  };
  for (const auto& key : sweep_keys()) {
    const YAML::Node v = node[key];
    if (!v)
      continue;
    read_key(key, [&] {
      std::vector<Value> values;
      if (v.IsSequence()) {
        if (v.size() == 0)
          src.fail(v, ctx + "." + key + " is an empty list");
        for (auto it = v.begin(); it != v.end(); ++it)
          values.push_back(read_param(src, family(family_name), key, *it));
      } else {
        values.push_back(read_param(src, family(family_name), key, v));
      }
      spec.params[key] = values;
    });
  }
  if (const YAML::Node z = node["zip"])
    read_key("zip", [&] { read_zip(src, node, z, ctx, family(family_name), spec); });
  if (node["init"])
    read_key("init", [&] {
      const std::string init = read_string(src, node["init"], ctx + ".init");
      if (!is_one_of(init, init_kinds()))
        src.fail(node["init"],
                 ctx + ".init must be random, iota, ones or explicit, got '" + init + "'");
      spec.init = Value{init, init, src.position(node["init"])};
    });
  if (node["print"])
    read_key("print", [&] {
      spec.print = Value{read_bool(src, node["print"], "print"), "", src.position(node["print"])};
    });
  if (node["a"])
    read_key("a", [&] { spec.a = read_matrix(src, node["a"], "a"); });
  if (node["b"])
    read_key("b", [&] { spec.b = read_matrix(src, node["b"], "b"); });
  return spec;
}

void read_experiment(const Source& src, const YAML::Node& root, ExperimentConfig& cfg) {
  check_keys(src, root, top_level_keys(), "the experiment");
  cfg.settings = read_settings(src, root);
  const YAML::Node cases = require_key(src, root, "cases", "the experiment");
  if (!cases.IsSequence() || cases.size() == 0)
    src.fail(cases, "cases must be a non-empty list of kernel cases");
  // A case whose map or family cannot be read is left out; the others are still checked.
  for (size_t i = 0; i < cases.size(); ++i)
    src.attempt([&] { cfg.cases.push_back(read_case(src, cases[i], i)); });
}

} // namespace

ExperimentConfig parse_config(const std::string& label, const std::string& text,
                              const std::vector<std::string>& overrides, ErrorList* errors) {
  ExperimentConfig cfg;
  cfg.overrides = overrides;
  Source src(label);
  ErrorList own;
  ErrorList& gathered = errors ? *errors : own;
  try {
    // A duplicate key leaves the document readable: it is reported with the file's other errors.
    // An error that stops the reading ends here, with the duplicates found before it.
    YAML::Node root;
    src.gather_errors(&gathered);
    try {
      root = load_document(src, text);
    } catch (const ConfigError& e) {
      gathered.add(e.what());
      ErrorList all = gathered;
      gathered = ErrorList();
      all.throw_if_any();
    }
    src.gather_errors(nullptr);
    require_map(src, root, "the config");
    if (overrides.size() > std::size_t(limits::kMaxOverrides))
      throw ConfigError("--set[" + std::to_string(limits::kMaxOverrides + 1) + "]:1:1: " +
                        std::to_string(overrides.size()) + " --set items; the limit is " +
                        std::to_string(limits::kMaxOverrides) + " (see docs/config.md)");
    OwnedContainers owned;
    for (size_t i = 0; i < overrides.size(); ++i)
      apply_override(src, root, overrides[i], int(i + 1), owned, cfg.notes);
    // The document is sound YAML: from here on every independent error is gathered.
    src.gather_errors(&gathered);
    gathered.attempt([&] { read_experiment(src, root, cfg); });
  } catch (const YAML::Exception& e) {
    // A safety net: yaml-cpp errors not caught above still name a position, never abort.
    gathered.attempt([&] { src.fail_at(e.mark, e.msg); });
  }
  if (!errors)
    own.throw_if_any();
  return cfg;
}

ExperimentConfig load_config(const std::string& path, const std::vector<std::string>& overrides,
                             ErrorList* errors) {
  return parse_config(path, read_text_file(path, "config file"), overrides, errors);
}

} // namespace miniapp::config
