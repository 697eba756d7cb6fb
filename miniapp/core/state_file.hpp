#pragma once
// A JSON file the tool wrote for itself and reads back through core/input_file.hpp (the ceiling, autotune and estimate caches
// beside each other in the cache directory): state anyone may have edited, truncated or replaced,
// so read as hostile input. Only a regular file, not a symbolic link (a FIFO or device would block
// the run, and was read before this check), at most `max_bytes` (checked before and while reading,
// as it may grow between the two), nested at most `max_depth` deep (400000 nested lists in
// ceilings.json made its store fail without a word, and 5000 re-indented on every rewrite grew it
// from 10 KB to 50 MB in one run), and valid JSON.
#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>

namespace miniapp {

// The document; null where the file is absent, and null with *why set (one phrase, e.g. "larger
// than 1048576 bytes") where it is there but not readable as the bounds say.
nlohmann::json read_state_json(const std::string& path, std::uintmax_t max_bytes, int max_depth,
                               std::string* why);

} // namespace miniapp
