#pragma once
// The one bounded read of a text file (configs, system profiles, job templates); no YAML here.
#include <string>

namespace miniapp::config {

// The whole file at path, read no further than limits::kMaxFileBytes + 1 bytes (a huge file, or
// /dev/zero, is refused without being read). Throws ConfigError("path:1:1: ...").
std::string read_text_file(const std::string& path, const std::string& what);

} // namespace miniapp::config
