#include "run/autotune.hpp"

#include "kernels/kernel_case.hpp"
#include "report/results_writer.hpp"
#include "run/device_info.hpp"
#include "run/runner.hpp"
#include "run/timing.hpp"

#include <Kokkos_Core.hpp>
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>

namespace miniapp {

std::string autotune_cache_path() {
  if (const char* d = std::getenv("MINIAPP_CACHE_DIR"))
    return std::string(d) + "/autotune.json";
  const char* home = std::getenv("HOME");
  return std::string(home ? home : ".") + "/.cache/miniapp/autotune.json";
}

std::vector<int> tile_candidates(const Case& c, bool gpu) {
  if (!c.tile_auto)
    return {c.tile};
  if (c.variant == "tiled_rb")
    return {64, 128};
  if (gpu)
    return {8, 16, 32};
  return {4, 8, 16, 32};
}

std::vector<int> team_candidates(const Case& c, bool gpu, int concurrency) {
  if (!c.team_auto)
    return {c.team_size};
  if (c.family == "matmul")
    return {0}; // the tile decides the team; 0 = as many as fit
  std::vector<int> out;
  if (gpu) {
    for (int t = 32; t <= 1024; t *= 2)
      out.push_back(t);
  } else {
    for (int t = 1; t <= concurrency; t *= 2)
      out.push_back(t);
  }
  return out;
}

namespace {
std::string cache_key(const Case& c, const std::string& backend, const std::string& device) {
  const auto largest = std::max({c.m, c.n, c.k});
  const int size_class = int(std::floor(std::log2(double(largest > 0 ? largest : 1))));
  return backend + "|" + device + "|" + c.family + "/" + c.variant + "|" + to_string(c.precision) +
         "|2^" + std::to_string(size_class) +
         "|tile=" + (c.tile_auto ? "auto" : std::to_string(c.tile)) +
         "|team=" + (c.team_auto ? "auto" : std::to_string(c.team_size));
}

nlohmann::json load_cache() {
  std::ifstream in(autotune_cache_path());
  if (!in)
    return nlohmann::json::object();
  try {
    return nlohmann::json::parse(in);
  } catch (const std::exception&) {
    return nlohmann::json::object(); // a damaged cache is rebuilt, never trusted
  }
}

double time_once(const Case& c, const std::string& backend) {
  auto k = make_kernel_case(c, backend);
  k->upload();
  // The runner's rule and helper (run/timing.hpp), so the tuner ranks what the run will measure.
  return summarize(time_launches([&] { k->fence(); }, [&] { k->run(); }, 1, 3)).median;
}
} // namespace

Case autotune(const Case& c, const std::string& backend, const std::string& device) {
  if (!c.tile_auto && !c.team_auto)
    return c;
  const std::string key = cache_key(c, backend, device);
  nlohmann::json cache = load_cache();
  Case best = c;
  best.tile_auto = best.team_auto = false;
  if (cache.contains(key)) {
    best.tile = cache[key].value("tile", 0);
    best.team_size = cache[key].value("team_size", 0);
    best.tuning =
        "cached: tile=" + std::to_string(best.tile) + " team=" + std::to_string(best.team_size);
    return best;
  }
  const bool gpu = backend == "cuda" || backend == "hip";
  const int conc = device_info(backend).concurrency;
  double best_t = std::numeric_limits<double>::infinity();
  std::string tried;
  for (int tile : tile_candidates(c, gpu))
    for (int team : team_candidates(c, gpu, conc)) {
      Case trial = best;
      trial.tile = tile;
      trial.team_size = team;
      try {
        const double t = time_once(trial, backend);
        tried += " " + std::to_string(tile) + "/" + std::to_string(team);
        if (t < best_t) {
          best_t = t;
          best.tile = tile;
          best.team_size = team;
        }
      } catch (const std::exception&) {
        // a configuration the backend refuses (scratch, team size) is simply not a candidate
      }
    }
  if (!std::isfinite(best_t))
    throw std::runtime_error("autotune: no configuration of " + c.id() + " ran");
  best.tuning = "searched tile/team" + tried + ": chose tile=" + std::to_string(best.tile) +
                " team=" + std::to_string(best.team_size);
  cache[key] = {{"tile", best.tile}, {"team_size", best.team_size}, {"seconds", best_t}};
  try {
    const std::string path = autotune_cache_path();
    std::filesystem::create_directories(std::filesystem::path(path).parent_path());
    write_file_atomically(path, cache.dump(2) + "\n");
  } catch (const std::exception&) {
    best.tuning += " (cache not writable)";
  }
  return best;
}

} // namespace miniapp
