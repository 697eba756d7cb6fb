// The keys of an experiment config and the words some of them take (config/config.hpp): the
// loader checks against these lists and the JSON Schema (config/schema.cpp) is made from them.
#include "config/config.hpp"
#include "core/case_fields.hpp"

namespace miniapp::config {

// Parameters whose value may be a list (a sweep): the case-field table's sweep keys, the
// outermost sweep dimension first, then in table order (the order cases are expanded in).
const std::vector<std::string>& sweep_keys() {
  static const std::vector<std::string> k = [] {
    std::vector<std::string> keys;
    for (bool first : {true, false})
      for (const auto& f : case_fields())
        if (f.sweep && f.swept_first == first)
          keys.push_back(f.name);
    return keys;
  }();
  return k;
}

const std::vector<std::string>& top_level_keys() {
  static const std::vector<std::string> k = {
      "name",   "description", "backend", "precision",      "warmup", "repetitions", "validation",
      "output", "pinned",      "energy",  "reuse_ceilings", "mpi",    "cases"};
  return k;
}

const std::vector<std::string>& case_keys() {
  static const std::vector<std::string> k = [] {
    std::vector<std::string> keys = sweep_keys();
    for (const char* key : {"family", "init", "a", "b", "print", "zip"})
      keys.push_back(key);
    return keys;
  }();
  return k;
}

const std::vector<std::string>& init_kinds() {
  static const std::vector<std::string> k = {"random", "iota", "ones", "explicit"};
  return k;
}
const std::vector<std::string>& output_formats() {
  static const std::vector<std::string> k = {"csv", "json"};
  return k;
}
const std::vector<std::string>& transports() {
  static const std::vector<std::string> k = {"auto", "host", "device_mpi", "device_ipc"};
  return k;
}

} // namespace miniapp::config
