#include "core/state_file.hpp"

#include "core/input_file.hpp"

#include <filesystem>
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
  if (fs::is_symlink(st)) { // the tool's writes replace links, never follow them
    *why = "a symbolic link";
    return nullptr;
  }
  // The one strict reader (core/input_file.hpp) refuses a FIFO or device unread, bounds the size
  // while reading and the nesting before parsing; a cache holds a few thousand containers at most.
  try {
    return read_json_file(path, max_bytes, max_depth, 1000000);
  } catch (const InputFileError& e) {
    const std::string sentence = e.what(); // "PATH: why"
    const std::string prefix = ": ";
    const auto at = sentence.find(prefix);
    *why = at == std::string::npos ? sentence : sentence.substr(at + prefix.size());
    return nullptr;
  }
}

} // namespace miniapp
