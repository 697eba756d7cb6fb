#include "config/yaml_strict.hpp"

#include <yaml-cpp/eventhandler.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <regex>
#include <set>
#include <sstream>

namespace miniapp::config {

namespace {
void collect(const YAML::Node& n, std::vector<YAML::Node>& out) {
  out.push_back(n);
  if (n.IsSequence() || n.IsMap())
    for (auto it = n.begin(); it != n.end(); ++it) {
      if (n.IsMap()) {
        collect(it->first, out);
        collect(it->second, out);
      } else {
        collect(*it, out);
      }
    }
}

std::string type_name(const YAML::Node& n) {
  switch (n.Type()) {
  case YAML::NodeType::Map:
    return "a map";
  case YAML::NodeType::Sequence:
    return "a list";
  case YAML::NodeType::Null:
    return "nothing (null)";
  default:
    return (n.Tag() == "!" ? "the quoted string '" : "'") + n.Scalar() + "'";
  }
}

size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j)
    prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j)
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] != b[j - 1])});
    std::swap(prev, cur);
  }
  return prev[b.size()];
}
} // namespace

void Source::add_override(const YAML::Node& value, const std::string& label, int column) {
  std::vector<YAML::Node> nodes;
  collect(value, nodes);
  for (auto& n : nodes)
    overrides_.push_back({n, label, column, true});
}

void Source::add_override_node(const YAML::Node& node, const std::string& label, int column) {
  overrides_.push_back({node, label, column, false});
}

void Source::add_null_value(const YAML::Node& value, const YAML::Node& key) {
  null_values_.emplace_back(value, key);
}

std::string Source::where(const YAML::Node& node) const {
  for (const auto& o : overrides_) {
    if (!o.node.is(node))
      continue;
    const YAML::Mark m = node.Mark();
    int line = 1, col = o.column;
    if (o.use_mark && !m.is_null()) {
      line = m.line + 1;
      col = m.line == 0 ? o.column + m.column : m.column + 1;
    }
    return o.label + ":" + std::to_string(line) + ":" + std::to_string(col);
  }
  for (const auto& nv : null_values_)
    if (nv.first.is(node))
      return where(nv.second);
  const YAML::Mark m = node.Mark();
  if (m.is_null())
    return file_ + ":1:1";
  return file_ + ":" + std::to_string(m.line + 1) + ":" + std::to_string(m.column + 1);
}

void Source::fail(const YAML::Node& node, const std::string& message) const {
  throw ConfigError(where(node) + ": " + message);
}

void Source::fail_at(const YAML::Mark& m, const std::string& message) const {
  throw ConfigError(file_ + ":" + std::to_string(m.line + 1) + ":" + std::to_string(m.column + 1) +
                    ": " + message);
}

namespace {
// Only the positions of the document starts ('---'); yaml-cpp's nodes do not keep them.
struct DocumentStarts : YAML::EventHandler {
  std::vector<YAML::Mark> marks;
  void OnDocumentStart(const YAML::Mark& m) override { marks.push_back(m); }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
  void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t,
                const std::string&) override {}
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                       YAML::EmitterStyle::value) override {}
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                  YAML::EmitterStyle::value) override {}
  void OnMapEnd() override {}
};

YAML::Mark second_document_start(const std::string& text) {
  std::istringstream in(text);
  YAML::Parser parser(in);
  DocumentStarts starts;
  while (starts.marks.size() < 2 && parser.HandleNextDocument(starts)) {
  }
  return starts.marks.size() > 1 ? starts.marks[1] : YAML::Mark::null_mark();
}
} // namespace

YAML::Node load_document(Source& src, const std::string& text) {
  std::vector<YAML::Node> docs;
  try {
    docs = YAML::LoadAll(text);
  } catch (const YAML::ParserException& e) {
    src.fail_at(e.mark, "YAML syntax error: " + e.msg);
  }
  if (docs.empty() || docs[0].IsNull())
    throw ConfigError(src.file() +
                      ":1:1: the config is empty (expected a map with 'name' and 'cases')");
  if (docs.size() > 1) {
    const YAML::Mark m = second_document_start(text);
    const std::string msg = "a second YAML document ('---'); a config holds exactly one document";
    if (m.is_null())
      src.fail(docs[1], msg);
    src.fail_at(m, msg);
  }
  check_structure(src, docs[0]);
  return docs[0];
}

void check_structure(Source& src, const YAML::Node& node) {
  // yaml-cpp tags plain nodes "?" and quoted scalars "!"; anything else was written out
  // ("!!str 8") and would change how a value reads.
  const std::string& tag = node.Tag();
  if (!tag.empty() && tag != "?" && tag != "!")
    src.fail(node, "explicit YAML tags ('" + tag + "') are not supported; write the plain value");
  if (node.IsMap()) {
    std::set<std::string> seen;
    for (auto it = node.begin(); it != node.end(); ++it) {
      const YAML::Node key = it->first;
      if (!key.IsScalar())
        src.fail(key, "map keys must be plain names");
      if (key.Scalar() == "<<")
        src.fail(key, "YAML merge keys ('<<') are not supported: write the keys out");
      if (!seen.insert(key.Scalar()).second)
        src.fail(key,
                 "duplicate key '" + key.Scalar() + "' (the first one would be silently lost)");
      if (it->second.IsNull())
        src.add_null_value(it->second, key);
      check_structure(src, it->second);
    }
  } else if (node.IsSequence()) {
    for (auto it = node.begin(); it != node.end(); ++it)
      check_structure(src, *it);
  }
}

bool is_plain_scalar(const YAML::Node& n, const std::string& text) {
  // yaml-cpp tags quoted scalars "!" and plain ones "?"
  return n.IsScalar() && n.Tag() != "!" && n.Scalar() == text;
}

std::int64_t read_int(const Source& src, const YAML::Node& n, const std::string& what) {
  if (!n.IsScalar() || n.Tag() == "!")
    src.fail(n, what + " must be an integer, got " + type_name(n));
  const std::string s = n.Scalar();
  static const std::regex hex("^[-+]?0[xXoObB][0-9a-fA-F_]+$");
  static const std::regex leading_zero("^[-+]?0[0-9_]+$");
  static const std::regex decimal("^[-+]?(0|[1-9][0-9]*)$");
  if (std::regex_match(s, hex))
    src.fail(n, what + ": '" + s + "' is hexadecimal/octal/binary; write the value in decimal");
  if (std::regex_match(s, leading_zero))
    src.fail(n, what + ": '" + s +
                    "' has a leading zero (YAML readers may take it as octal); "
                    "write it without the zero");
  if (!std::regex_match(s, decimal))
    src.fail(n, what + " must be an integer, got '" + s + "'");
  try {
    return std::stoll(s);
  } catch (const std::out_of_range&) {
    src.fail(n, what + ": '" + s + "' is out of the 64-bit integer range");
  }
}

double read_double(const Source& src, const YAML::Node& n, const std::string& what) {
  if (!n.IsScalar() || n.Tag() == "!")
    src.fail(n, what + " must be a number, got " + type_name(n));
  std::string s = n.Scalar();
  std::string lower = s;
  std::transform(lower.begin(), lower.end(), lower.begin(), ::tolower);
  if (lower.find("nan") != std::string::npos || lower.find("inf") != std::string::npos)
    src.fail(n, what + ": '" + s + "' is not a finite number");
  static const std::regex hex("^[-+]?0[xXoObB][0-9a-fA-F_]+$");
  static const std::regex leading_zero("^[-+]?0[0-9]+$");
  static const std::regex number("^[-+]?([0-9]+\\.?[0-9]*|\\.[0-9]+)([eE][-+]?[0-9]+)?$");
  if (std::regex_match(s, hex) || std::regex_match(s, leading_zero))
    src.fail(n, what + ": '" + s + "' must be written in plain decimal");
  if (!std::regex_match(s, number))
    src.fail(n, what + " must be a number, got '" + s + "'");
  const double v = std::strtod(s.c_str(), nullptr);
  if (!std::isfinite(v))
    src.fail(n, what + ": '" + s + "' is not a finite number");
  return v;
}

bool read_bool(const Source& src, const YAML::Node& n, const std::string& what) {
  if (is_plain_scalar(n, "true"))
    return true;
  if (is_plain_scalar(n, "false"))
    return false;
  src.fail(n, what + " must be true or false, got " + type_name(n));
}

std::string read_string(const Source& src, const YAML::Node& n, const std::string& what) {
  if (!n.IsScalar() || n.Scalar().empty())
    src.fail(n, what + " must be a non-empty string, got " + type_name(n));
  return n.Scalar();
}

std::string closest(const std::string& word, const std::vector<std::string>& candidates) {
  std::string best;
  size_t best_d = std::string::npos;
  for (const auto& c : candidates) {
    const size_t d = edit_distance(word, c);
    if (d < best_d) {
      best_d = d;
      best = c;
    }
  }
  return best_d <= std::max<size_t>(2, word.size() / 3) ? best : std::string();
}

void require_map(const Source& src, const YAML::Node& n, const std::string& what) {
  if (!n.IsMap())
    src.fail(n, what + " must be a map of keys, got " + type_name(n));
}

void check_keys(const Source& src, const YAML::Node& map, const std::vector<std::string>& allowed,
                const std::string& context) {
  for (auto it = map.begin(); it != map.end(); ++it) {
    const std::string key = it->first.Scalar();
    if (std::find(allowed.begin(), allowed.end(), key) != allowed.end())
      continue;
    const std::string hint = closest(key, allowed);
    src.fail(it->first, "unknown key '" + key + "' in " + context +
                            (hint.empty() ? "" : " (did you mean '" + hint + "'?)"));
  }
}

const YAML::Node require_key(const Source& src, const YAML::Node& map, const std::string& key,
                             const std::string& context) {
  const YAML::Node v = map[key];
  if (!v)
    src.fail(map, "missing required key '" + key + "' in " + context);
  return v;
}

} // namespace miniapp::config
