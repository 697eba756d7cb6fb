#pragma once
// The experiment-wide settings of a config (everything but its cases), read by config.cpp.
#include "config/config.hpp"
#include "config/yaml_strict.hpp"

namespace miniapp::config {

// Each key is checked on its own: where the source gathers errors, every one is reported.
Settings read_settings(const Source& src, const YAML::Node& root);
bool is_one_of(const std::string& word, const std::vector<std::string>& choices);

} // namespace miniapp::config
