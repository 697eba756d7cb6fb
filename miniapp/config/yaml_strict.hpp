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
  void add_override(const YAML::Node& value, const std::string& label);
  std::string where(const YAML::Node& node) const;
  [[noreturn]] void fail(const YAML::Node& node, const std::string& message) const;
  [[noreturn]] void fail_at(const YAML::Mark& mark, const std::string& message) const;

private:
  std::string file_;
  std::vector<std::pair<YAML::Node, std::string>> overrides_; // every node of each override
};

// Loads exactly one document; syntax errors, empty files, several documents, duplicate keys and
// merge keys are errors.
YAML::Node load_document(const Source& src, const std::string& text);
// Rejects duplicate keys and '<<' anywhere below node.
void check_structure(const Source& src, const YAML::Node& node);

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
