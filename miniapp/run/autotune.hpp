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

} // namespace miniapp
