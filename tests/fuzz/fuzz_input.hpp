#pragma once
// How a fuzz input is read: the whole input is the YAML text (shipped configs and profiles are
// valid seeds as they are); its leading comment lines "# KEY: VALUE" are also options, as in
// tests/bad_configs (check_bad_config.sh): "# set: cases.0.n=[3,4]" is a --set override. They stay
// in the text as YAML comments, so the line numbers of errors are those of the input.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include <unistd.h>

namespace miniapp::fuzz {

struct Input {
  std::string text;
  std::vector<std::pair<std::string, std::string>> options; // (KEY, VALUE) in input order
};

inline Input read_input(const std::uint8_t* data, std::size_t size) {
  Input in;
  in.text.assign(reinterpret_cast<const char*>(data), size);
  for (std::size_t pos = 0; pos < in.text.size() && in.text[pos] == '#';) {
    std::size_t end = in.text.find('\n', pos);
    if (end == std::string::npos)
      end = in.text.size();
    const std::string line = in.text.substr(pos, end - pos);
    const std::size_t colon = line.find(": ");
    if (line.compare(0, 2, "# ") == 0 && colon != std::string::npos)
      in.options.emplace_back(line.substr(2, colon - 2), line.substr(colon + 2));
    pos = end + 1;
  }
  return in;
}

// /tmp/miniapp-fuzz-NAME-PID, made at the first call: where a target writes the file it reads back
// (one per process, so parallel fuzzers never share it).
inline std::string scratch_dir(const std::string& name) {
  const std::string dir = (std::filesystem::temp_directory_path() /
                           ("miniapp-fuzz-" + name + "-" + std::to_string(::getpid())))
                              .string();
  std::filesystem::create_directories(dir);
  return dir;
}

// The input as the whole content of `path` (the file a target then reads back).
inline void write_file(const std::string& path, const std::string& content) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << content;
}

} // namespace miniapp::fuzz
