// libFuzzer target: autotune.json, the autotune cache (run/autotune.hpp), read back as `miniapp
// run` reads it for a case with 'auto' values: the bytes written as the file, read through
// read_autotune_cache, and every entry it keeps checked against the searches of a few cases
// (team_size: auto of axpby, tile: auto of matmul tiled, tile and shape auto of tiled_rb). An
// entry the check accepts must hold values the search could have chosen. A crash, a leak, a hang,
// unbounded memory or an exception out of the reader is a finding (docs/testing.md).
#include "kernels/families.hpp"
#include "fuzz_input.hpp"
#include "run/autotune.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

namespace {

std::string scratch_file() {
  static const std::string path = miniapp::fuzz::scratch_dir("autotune") + "/autotune.json";
  return path;
}

std::vector<miniapp::Case> searched_cases() {
  std::vector<miniapp::Case> out(3);
  out[0].family = "axpby";
  out[0].variant = "team";
  out[0].m = out[0].n = 64;
  out[0].team_auto = true;
  out[1].family = out[2].family = "matmul";
  out[1].variant = "tiled";
  out[2].variant = "tiled_rb";
  for (std::size_t i = 1; i < 3; ++i) {
    out[i].m = out[i].n = out[i].k = 256;
    out[i].tile_auto = true;
  }
  out[2].shape_auto = true;
  return out;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = scratch_file();
  miniapp::fuzz::write_file(path, std::string(reinterpret_cast<const char*>(data), size));
  static const std::vector<miniapp::Case> cases = searched_cases();
  const nlohmann::json cache = miniapp::read_autotune_cache(path);
  if (!cache.is_object())
    std::abort();
  std::size_t checked = 0;
  for (const auto& [key, entry] : cache.items()) {
    if (++checked > 64) // the check is per entry: a few reach every path
      break;
    for (const miniapp::Case& c : cases) {
      const auto tiles = miniapp::tile_candidates(c, false);
      const auto teams = miniapp::team_candidates(c, false, 4);
      if (!miniapp::check_autotune_entry(entry, tiles, teams, c, "serial").empty())
        continue;
      const auto tile = entry["tile"].get<std::int64_t>(); // accepted: typed and a candidate
      if (std::find(tiles.begin(), tiles.end(), tile) == tiles.end())
        std::abort();
    }
  }
  return 0;
}
