#include "core/state_file.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <system_error>

namespace miniapp {

nlohmann::json read_state_json(const std::string& path, std::uintmax_t max_bytes, int max_depth,
                               std::string* why) {
  namespace fs = std::filesystem;
  why->clear();
  std::error_code ec;
  const fs::file_status st = fs::symlink_status(path, ec);
  if (ec || !fs::exists(st))
    return nullptr;
  if (!fs::is_regular_file(st)) { // (a link too: the tool's writes replace links, never follow)
    *why = fs::is_symlink(st) ? "a symbolic link" : "not a regular file";
    return nullptr;
  }
  const std::uintmax_t size = fs::file_size(path, ec);
  const std::string too_large = "larger than " + std::to_string(max_bytes) + " bytes";
  if (ec || size > max_bytes) {
    *why = ec ? "not readable" : too_large;
    return nullptr;
  }
  std::ifstream in(path, std::ios::binary);
  std::string text(max_bytes + 1, '\0');
  in.read(text.data(), std::streamsize(text.size()));
  text.resize(std::size_t(in.gcount()));
  if (text.size() > max_bytes) { // grew between the check and the read
    *why = too_large;
    return nullptr;
  }
  int depth = 0, deepest = 0;
  for (const char c : text) { // brackets inside strings count too: a bound, not a parse
    depth += c == '[' || c == '{' ? 1 : c == ']' || c == '}' ? -1 : 0;
    deepest = std::max(deepest, depth);
  }
  if (deepest > max_depth) {
    *why = "nested deeper than " + std::to_string(max_depth);
    return nullptr;
  }
  nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded()) {
    *why = "not valid JSON";
    return nullptr;
  }
  return j;
}

} // namespace miniapp
