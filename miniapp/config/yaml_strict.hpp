#pragma once
// Strict reading of YAML for experiment configs. yaml-cpp 0.7 accepts things a user almost never
// means (duplicate keys, '<<' merge keys as plain keys, 010 as octal, .nan); every such case is an
// error here, reported as file:line:col: message.
#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace miniapp::config {

struct ConfigError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

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
  std::string where(const YAML::Node& node) const;
  [[noreturn]] void fail(const YAML::Node& node, const std::string& message) const;
  [[noreturn]] void fail_at(const YAML::Mark& mark, const std::string& message) const;

private:
  struct Placed {
    YAML::Node node;
    std::string label;
    int column;    // where the node starts (1-based) when it has no mark of its own
    bool use_mark; // add the node's own column to column - 1
  };
  std::string file_;
  std::vector<Placed> overrides_;
  std::vector<std::pair<YAML::Node, YAML::Node>> null_values_; // (value, its key)
};

// Loads exactly one document; syntax errors, empty files, several documents, duplicate keys and
// merge keys are errors.
YAML::Node load_document(Source& src, const std::string& text);
// Rejects duplicate keys and '<<' anywhere below node; notes empty values for error positions.
void check_structure(Source& src, const YAML::Node& node);

// Scalars, read strictly. `what` names the key in messages.
std::int64_t read_int(const Source& src, const YAML::Node& n, const std::string& what);
double read_double(const Source& src, const YAML::Node& n, const std::string& what);
bool read_bool(const Source& src, const YAML::Node& n, const std::string& what);
std::string read_string(const Source& src, const YAML::Node& n, const std::string& what);
bool is_plain_scalar(const YAML::Node& n, const std::string& text);

// Unknown keys are errors with a did-you-mean suggestion.
void check_keys(const Source& src, const YAML::Node& map, const std::vector<std::string>& allowed,
                const std::string& context);
void require_map(const Source& src, const YAML::Node& n, const std::string& what);
const YAML::Node require_key(const Source& src, const YAML::Node& map, const std::string& key,
                             const std::string& context);
std::string closest(const std::string& word, const std::vector<std::string>& candidates);

} // namespace miniapp::config
