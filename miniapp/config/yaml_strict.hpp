#pragma once
// Strict reading of YAML for experiment configs. yaml-cpp 0.7 accepts things a user almost never
// means (duplicate keys, '<<' merge keys as plain keys, 010 as octal, .nan); every such case is an
// error here, reported as file:line:col: message.
#include "config/read_text.hpp"
#include "config/value.hpp"

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace miniapp::config {

// Knows which file (or --set override) each node came from, to say where an error is.
class Source {
public:
  explicit Source(std::string file) : file_(std::move(file)) {}
  const std::string& file() const { return file_; }
  // Every node of an override value; its columns count from `column` (1-based) of the label.
  void add_override(const YAML::Node& value, const std::string& label, int column);
  // One node (a key or a map an override created) placed at `column` of the label.
  void add_override_node(const YAML::Node& node, const std::string& label, int column);
  // An empty value ("n:") carries the position of whatever follows it; errors about it name
  // the key instead.
  void add_null_value(const YAML::Node& value, const YAML::Node& key);
  // A node copied from `original` (e.g. to unshare an aliased case before a --set) is placed
  // where the original is.
  void add_copy(const YAML::Node& copy, const YAML::Node& original);
  Position position(const YAML::Node& node) const;
  std::string where(const YAML::Node& node) const { return position(node).str(); }
  [[noreturn]] void fail(const YAML::Node& node, const std::string& message) const;
  [[noreturn]] void fail_at(const YAML::Mark& mark, const std::string& message) const;
  // Gathering independent errors (config/value.hpp ErrorList) instead of stopping at the first:
  // attempt runs a check and, when gathering, records the ConfigError it throws (false then);
  // report records an error and goes on (fails at once when not gathering).
  void gather_errors(ErrorList* errors) { errors_ = errors; }
  template <class F>
  bool attempt(F&& f) const {
    if (errors_)
      return errors_->attempt(f);
    f();
    return true;
  }
  void report(const YAML::Node& node, const std::string& message) const;

private:
  struct Placed {
    YAML::Node node;
    std::string label;
    int column;    // where the node starts (1-based) when it has no mark of its own
    bool use_mark; // add the node's own column to column - 1
  };
  std::string file_;
  ErrorList* errors_ = nullptr;
  std::vector<Placed> overrides_;
  std::vector<std::pair<YAML::Node, YAML::Node>> null_values_; // (node, the node placed for it)
};

// Loads exactly one document; syntax errors, empty files, several documents, duplicate keys,
// merge keys, invalid UTF-8 and anything over the limits of config/limits.hpp are errors.
YAML::Node load_document(Source& src, const std::string& text);
// Parses the first YAML document of text without ever asking yaml-cpp for more than
// limits::kMaxDocumentsRead documents (yaml-cpp 0.7 yields null documents forever on some inputs,
// e.g. a lone ','). Throws TextError for a syntax error, a second document or no progress.
struct TextError {
  YAML::Mark mark;
  std::string message;
};
YAML::Node parse_one_document(const std::string& text);
// The position of the first byte of text that is not valid UTF-8; null when all is valid.
YAML::Mark first_invalid_utf8(const std::string& text);
// Walks node with every alias expanded, within the limits of config/limits.hpp (nesting depth,
// expanded nodes, string length; an alias inside itself is an error). Rejects duplicate keys,
// '<<', tags and non-scalar keys; notes empty values for error positions.
void check_structure(Source& src, const YAML::Node& node);

// Scalars, read strictly. `what` names the key in messages.
std::int64_t read_int(const Source& src, const YAML::Node& n, const std::string& what);
double read_double(const Source& src, const YAML::Node& n, const std::string& what);
bool read_bool(const Source& src, const YAML::Node& n, const std::string& what);
std::string read_string(const Source& src, const YAML::Node& n, const std::string& what);
// One line of text (a name, a path, a shell word): a string without a newline, a NUL or any other
// control byte, which would cut it short or change it where a job or the system reads it; tabs
// only where `tabs` (shell code). The one reader of such lines (profiles, studies).
std::string read_line(const Source& src, const YAML::Node& n, const std::string& what,
                      bool tabs = false);
bool is_plain_scalar(const YAML::Node& n, const std::string& text);
// [-+]?(0|[1-9][0-9]*) within the 64-bit range; false otherwise (never throws). The one place
// where decimal integers are parsed from text (configs, --set indices, command-line shapes).
bool parse_decimal_int(const std::string& s, std::int64_t& out);

// Unknown keys are errors with a did-you-mean suggestion (each one recorded where the source
// gathers errors).
void check_keys(const Source& src, const YAML::Node& map, const std::vector<std::string>& allowed,
                const std::string& context);
void require_map(const Source& src, const YAML::Node& n, const std::string& what);
const YAML::Node require_key(const Source& src, const YAML::Node& map, const std::string& key,
                             const std::string& context);
std::string closest(const std::string& word, const std::vector<std::string>& candidates);

} // namespace miniapp::config
