#pragma once
// The one strict reader of files the tool reads back after writing them itself (study-state.json,
// ceilings.json, autotune.json, estimates.json, a results.json being resumed): anyone may have
// edited, truncated or replaced them, so they are inputs like any other. A FIFO or a device is
// refused before a byte is read (opened with O_NONBLOCK, then fstat: a FIFO with no writer can
// neither block the open nor the read), the size is bounded while reading (/dev/zero behind a
// symbolic link is refused at the fstat), JSON nesting and container counts are bounded before
// the (recursive) parser sees the text, and a map holding one key twice is refused.
#include <nlohmann/json.hpp>

#include <cstdint>
#include <stdexcept>
#include <string>

namespace miniapp {

// Thrown by the reader; what() is one sentence that starts with the path.
struct InputFileError : std::runtime_error {
  enum class Why { missing, not_regular, too_large, unreadable, not_json, duplicate_key };
  InputFileError(Why why, std::string path, const std::string& sentence);
  Why why;
  std::string path;
};

// The whole regular file at path (symbolic links followed), at most max_bytes of it.
std::string read_regular_file(const std::string& path, std::uint64_t max_bytes);

// For a file another library opens (SQLite): throws InputFileError(not_regular) where something
// other than a regular file is at path (symbolic links followed); nothing where nothing is.
void refuse_unless_regular(const std::string& path);

// JSON text nested at most max_depth maps and lists deep, holding at most max_containers of them,
// parsed. Throws InputFileError(not_json) naming `source`, or (duplicate_key) naming `source`, the
// map and the key where a map holds one key twice (no file the program writes does).
nlohmann::json parse_json_bounded(const std::string& text, const std::string& source, int max_depth,
                                  std::uint64_t max_containers);

// read_regular_file then parse_json_bounded.
nlohmann::json read_json_file(const std::string& path, std::uint64_t max_bytes, int max_depth,
                              std::uint64_t max_containers);

} // namespace miniapp
