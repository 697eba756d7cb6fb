#pragma once
// `tile: auto`, `team_size: auto` and `shape: auto` (tiled_rb's tile shapes, for each tile
// searched the shapes compiled for it): time each configuration the backend allows for the case,
// keep the fastest, and cache it per backend, device, Slurm partition, concurrency (threads),
// kernel, precision and size class (log2 of each dimension) in $MINIAPP_CACHE_DIR/autotune.json
// (default
// ~/.cache/miniapp), so later runs and other configs reuse it. The chosen values replace 'auto' in
// the case, and Case::tuning says what was searched and whether the cache answered. Cached entries
// are checked on read: values the search could not have chosen, or a damaged file, are ignored
// (with a warning) and searched.
#include "core/case.hpp"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace miniapp {

Case autotune(const Case& c, const std::string& backend, const std::string& device);
// The same on the backend's own device (core/device_info.hpp, asked only where a value is 'auto'):
// a case with nothing to search comes back as it is.
Case autotune(const Case& c, const std::string& backend);
std::vector<int> tile_candidates(const Case& c, bool gpu);
std::vector<int> team_candidates(const Case& c, bool gpu, int concurrency);
// The shapes searched at a tile: the list's (shape: auto), the one the config names where that
// tile has it (else none), or {""} (the default).
std::vector<std::string> shape_candidates(const Case& c, const std::string& backend, int tile);
std::string autotune_cache_path();
// The cache as autotune() reads it (core/state_file.hpp's bounds; a damaged file is an empty
// object, with a warning on stderr), holding only entries shaped as autotune() writes them.
nlohmann::json read_autotune_cache(const std::string& path);
// "" when a cached entry's values are ones the search of `c` could have chosen (tiles and teams
// its candidates, the shape one of those at its tile); else why it is not used.
std::string check_autotune_entry(const nlohmann::json& entry, const std::vector<int>& tiles,
                                 const std::vector<int>& teams, const Case& c,
                                 const std::string& backend);

} // namespace miniapp
