#include "config/yaml_strict.hpp"

#include "config/limits.hpp"
#include "core/input_file.hpp"

#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/eventhandler.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <set>
#include <sstream>

namespace miniapp::config {

namespace {
// Every node of an override value, for positions. Bounded like check_structure (which reports
// the reason): an alias cycle or bomb stops the collection, not the program.
void collect(const YAML::Node& n, std::vector<YAML::Node>& out, int depth = 1) {
  if (depth > limits::kMaxNestingDepth || out.size() > limits::kMaxExpandedNodes / 10)
    return;
  out.push_back(n);
  if (n.IsSequence() || n.IsMap())
    for (auto it = n.begin(); it != n.end(); ++it) {
      if (n.IsMap()) {
        collect(it->first, out, depth + 1);
        collect(it->second, out, depth + 1);
      } else {
        collect(*it, out, depth + 1);
      }
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

void Source::add_copy(const YAML::Node& copy, const YAML::Node& original) {
  null_values_.emplace_back(copy, original);
}

Position Source::position(const YAML::Node& node) const {
  for (const auto& o : overrides_) {
    if (!o.node.is(node))
      continue;
    const YAML::Mark m = node.Mark();
    int line = 1, col = o.column;
    if (o.use_mark && !m.is_null()) {
      line = m.line + 1;
      col = m.line == 0 ? o.column + m.column : m.column + 1;
    }
    return {o.label, line, col};
  }
  for (const auto& nv : null_values_)
    if (nv.first.is(node))
      return position(nv.second);
  const YAML::Mark m = node.Mark();
  if (m.is_null())
    return {file_, 1, 1};
  return {file_, m.line + 1, m.column + 1};
}

void Source::fail(const YAML::Node& node, const std::string& message) const {
  throw ConfigError(where(node) + ": " + message);
}

void Source::report(const YAML::Node& node, const std::string& message) const {
  if (!errors_)
    fail(node, message);
  errors_->add(where(node) + ": " + message);
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

std::string too_deep() {
  return "maps and lists nest deeper than " + std::to_string(limits::kMaxNestingDepth) +
         " levels (the limit; see docs/config.md)";
}

YAML::Mark mark_at(const std::string& text, size_t pos) {
  YAML::Mark m;
  m.pos = int(pos);
  m.line = int(std::count(text.begin(), text.begin() + pos, '\n'));
  const size_t line_start = pos == 0 ? 0 : text.rfind('\n', pos - 1);
  m.column = int(line_start == std::string::npos || pos == 0 ? pos : pos - line_start - 1);
  return m;
}
} // namespace

YAML::Mark first_invalid_utf8(const std::string& text) {
  const auto* s = reinterpret_cast<const unsigned char*>(text.data());
  const size_t n = text.size();
  for (size_t i = 0; i < n;) {
    const unsigned char c = s[i];
    size_t len = 0;
    unsigned lo = 0x80, hi = 0xBF; // allowed range of the second byte
    if (c < 0x80)
      len = 1;
    else if (c >= 0xC2 && c <= 0xDF)
      len = 2;
    else if (c >= 0xE0 && c <= 0xEF) {
      len = 3;
      lo = c == 0xE0 ? 0xA0 : 0x80; // no overlong forms
      hi = c == 0xED ? 0x9F : 0xBF; // no UTF-16 surrogates
    } else if (c >= 0xF0 && c <= 0xF4) {
      len = 4;
      lo = c == 0xF0 ? 0x90 : 0x80;
      hi = c == 0xF4 ? 0x8F : 0xBF; // nothing above U+10FFFF
    } else {
      return mark_at(text, i);
    }
    if (i + len > n)
      return mark_at(text, i);
    for (size_t k = 1; k < len; ++k) {
      const unsigned b = s[i + k];
      if (b < (k == 1 ? lo : 0x80) || b > (k == 1 ? hi : 0xBF))
        return mark_at(text, i);
    }
    i += len;
  }
  return YAML::Mark::null_mark();
}

YAML::Node parse_one_document(const std::string& text) {
  // First the document starts alone (events, no nodes), asking for three documents at most.
  std::vector<YAML::Mark> starts;
  try {
    std::istringstream in(text);
    YAML::Parser parser(in);
    DocumentStarts events;
    for (int i = 0; i < limits::kMaxDocumentsRead && parser.HandleNextDocument(events); ++i) {
    }
    starts = events.marks;
  } catch (const YAML::DeepRecursion& e) { // yaml-cpp's own guard (2000 levels)
    throw TextError{e.mark, too_deep()};
  } catch (const YAML::ParserException& e) {
    throw TextError{e.mark, "YAML syntax error: " + e.msg};
  }
  // A document that starts where the previous one did: the parser read nothing there (yaml-cpp
  // 0.7 then repeats an empty document forever). That is a syntax error, even after a first
  // document that was read ("--- ," is one document and a stuck one).
  for (size_t d = 1; d < starts.size(); ++d)
    if (starts[d].pos <= starts[d - 1].pos) {
      const size_t pos = size_t(std::max(0, starts[d].pos));
      const char ch = pos < text.size() ? text[pos] : '\0';
      throw TextError{starts[d], "YAML syntax error: unexpected " +
                                     (ch > ' ' && ch < 127 ? "'" + std::string(1, ch) + "'"
                                                           : std::string("text")) +
                                     " where a value or key was expected"};
    }
  if (starts.size() > 1)
    throw TextError{starts[1],
                    "a second YAML document ('---'); a config holds exactly one document"};
  try {
    return YAML::Load(text);
  } catch (const YAML::ParserException& e) {
    throw TextError{e.mark, "YAML syntax error: " + e.msg};
  }
}

namespace {
[[noreturn]] void file_too_large(const std::string& file, const std::string& size) {
  throw ConfigError(file + ":1:1: the file is " + size + " bytes; the limit is " +
                    std::to_string(limits::kMaxFileBytes) + " bytes (docs/config.md, Limits)");
}
} // namespace

std::string read_text_file(const std::string& path, const std::string& what) {
  // Through the strict reader: a FIFO given as a config or profile made validate, run and
  // jobscript --system wait for ever for a writer; it is refused before a byte is read.
  using Why = InputFileError::Why;
  try {
    return read_regular_file(path, limits::kMaxFileBytes);
  } catch (const InputFileError& e) {
    if (e.why == Why::too_large)
      file_too_large(path, "more than " + std::to_string(limits::kMaxFileBytes));
    const std::string sentence = e.what(); // "PATH: is a FIFO, not a regular file; ..."
    const std::size_t at = sentence.rfind(": is ", sentence.find(", not a regular file"));
    if (e.why != Why::not_regular || at == std::string::npos)
      throw ConfigError(path + ":1:1: cannot open the " + what);
    throw ConfigError(path + ":1:1: the " + what + " " + sentence.substr(at + 2));
  }
}

YAML::Node load_document(Source& src, const std::string& text) {
  if (text.size() > limits::kMaxFileBytes)
    file_too_large(src.file(), std::to_string(text.size()));
  const YAML::Mark bad = first_invalid_utf8(text);
  if (!bad.is_null())
    src.fail_at(bad, "the text is not valid UTF-8 (an invalid byte here); save the file as UTF-8");
  YAML::Node doc;
  try {
    doc = parse_one_document(text);
  } catch (const TextError& e) {
    src.fail_at(e.mark, e.message);
  }
  if (doc.IsNull())
    throw ConfigError(src.file() +
                      ":1:1: the config is empty (expected a map with 'name' and 'cases')");
  check_structure(src, doc);
  return doc;
}

namespace {
// The bounded walk of check_structure: `path` holds the nodes from the root down to the current
// one, so an alias that refers to one of its own containers is seen at once.
struct Walk {
  Source& src;
  std::uint64_t visited = 0;
  std::vector<YAML::Node> path;
};

void check_node(Walk& w, const YAML::Node& node) {
  Source& src = w.src;
  if (++w.visited > limits::kMaxExpandedNodes)
    src.fail(node, "the document expands to more than " +
                       std::to_string(limits::kMaxExpandedNodes) +
                       " values once its aliases are expanded (the limit; see docs/config.md)");
  for (const auto& up : w.path)
    if (up.is(node))
      src.fail(node, "an alias refers to a map or list that contains it (a cycle)");
  if (int(w.path.size()) >= limits::kMaxNestingDepth)
    src.fail(node, too_deep());
  // yaml-cpp tags plain nodes "?" and quoted scalars "!"; anything else was written out
  // ("!!str 8") and would change how a value reads.
  const std::string& tag = node.Tag();
  if (!tag.empty() && tag != "?" && tag != "!")
    src.fail(node, "explicit YAML tags ('" + tag + "') are not supported; write the plain value");
  if (node.IsScalar() && node.Scalar().size() > limits::kMaxStringBytes)
    src.fail(node, "a value of " + std::to_string(node.Scalar().size()) + " bytes; the limit is " +
                       std::to_string(limits::kMaxStringBytes) + " (see docs/config.md)");
  // A NUL ("\0", or the byte itself) would cut the value short wherever it becomes a C string:
  // a path, a shell word, an environment variable.
  if (node.IsScalar() && node.Scalar().find('\0') != std::string::npos)
    src.fail(node, "the value holds a NUL byte ('\\0'); no name, path or text may contain one");
  if (!node.IsMap() && !node.IsSequence())
    return;
  w.path.push_back(node);
  if (node.IsMap()) {
    std::set<std::string> seen;
    for (auto it = node.begin(); it != node.end(); ++it) {
      const YAML::Node key = it->first;
      if (!key.IsScalar())
        src.fail(key, "map keys must be plain names");
      check_node(w, key);
      if (key.Scalar() == "<<")
        src.fail(key, "YAML merge keys ('<<') are not supported: write the keys out");
      if (!seen.insert(key.Scalar()).second) // reading goes on: gathered with the other errors
        src.report(key,
                   "duplicate key '" + key.Scalar() + "' (the first one would be silently lost)");
      if (it->second.IsNull())
        src.add_null_value(it->second, key);
      check_node(w, it->second);
    }
  } else {
    for (auto it = node.begin(); it != node.end(); ++it)
      check_node(w, *it);
  }
  w.path.pop_back();
}

} // namespace

void check_structure(Source& src, const YAML::Node& node) {
  Walk w{src, 0, {}};
  check_node(w, node);
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

void check_keys(const Source& src, const YAML::Node& map, const std::vector<std::string>& allowed,
                const std::string& context) {
  for (auto it = map.begin(); it != map.end(); ++it) {
    const std::string key = it->first.Scalar();
    if (std::find(allowed.begin(), allowed.end(), key) != allowed.end())
      continue;
    const std::string hint = closest(key, allowed);
    src.report(it->first, "unknown key '" + key + "' in " + context +
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
