#include "run/autotune.hpp"
#include "core/environment.hpp"
#include "core/backends.hpp"

#include "kernels/families.hpp"
#include "core/files.hpp"
#include "core/host_load.hpp"
#include "core/state_file.hpp"
#include "core/device_info.hpp"
#include "core/result.hpp"
#include "core/text.hpp"
#include "core/timing.hpp"

#include <Kokkos_Core.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <limits>
#include <utility>

namespace miniapp {

std::string autotune_cache_path() {
  // Set but empty is unset: "" + "/autotune.json" put both caches in the filesystem's root.
  const auto set = [](const char* name) {
    const char* v = env::value(name);
    return v && *v ? std::string(v) : std::string();
  };
  if (const std::string dir = set("MINIAPP_CACHE_DIR"); !dir.empty())
    return dir + "/autotune.json";
  const std::string home = set("HOME");
  return (home.empty() ? std::string(".") : home) + "/.cache/miniapp/autotune.json";
}

std::vector<int> tile_candidates(const Case& c, bool gpu) {
  if (!c.tile_auto)
    return {c.tile};
  const Variant& v = family(c.family).variant(c.variant);
  return gpu ? v.tile_search_gpu : v.tile_search_host;
}

std::vector<std::string> shape_candidates(const Case& c, const std::string& backend, int tile) {
  if (!c.shape_auto && c.shape.empty())
    return {c.shape}; // the list's default at whichever tile runs
  Case at_tile = c;
  at_tile.tile = tile;
  const std::vector<std::string> names = shape_names(at_tile, backend);
  if (c.shape_auto)
    return names;
  // A shape the config names belongs to one tile: with 'tile: auto', the tiles it has.
  if (std::find(names.begin(), names.end(), c.shape) == names.end())
    return {};
  return {c.shape};
}

std::vector<int> team_candidates(const Case& c, bool gpu, int concurrency) {
  if (!c.team_auto)
    return {c.team_size};
  if (!family(c.family).team_search)
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

// The cache's bounds as it is read (core/state_file.hpp): an entry is about 200 bytes, and a
// machine's configs tune a few hundred cases.
constexpr std::uintmax_t kAutotuneCacheBytes = 4u << 20;
constexpr std::size_t kAutotuneCacheEntries = 16384;

int size_class(std::int64_t v) {
  return int(std::floor(std::log2(double(v > 0 ? v : 1))));
}

// Everything that can change which configuration wins: the backend, its device (and Slurm
// partition) and how many threads (or device concurrency) it runs with, the kernel and its
// precision, the size class of each dimension (the shape, not only the largest side), in-place,
// and the values fixed by the config.
std::string cache_key(const Case& c, const std::string& backend, const std::string& device,
                      int concurrency) {
  // Nodes of different Slurm partitions may report the same device name on different hardware.
  const char* partition = env::value("SLURM_JOB_PARTITION");
  return backend + "|" + device + "|concurrency=" + std::to_string(concurrency) +
         (partition && *partition ? "|partition=" + std::string(partition) : "") + "|" + c.family +
         "/" + c.variant + "|" + to_string(c.precision) + "|2^" + std::to_string(size_class(c.m)) +
         "x2^" + std::to_string(size_class(c.n)) + "x2^" + std::to_string(size_class(c.k)) +
         (c.in_place ? "|in_place" : "") +
         "|tile=" + (c.tile_auto ? "auto" : std::to_string(c.tile)) +
         "|team=" + (c.team_auto ? "auto" : std::to_string(c.team_size)) +
         // (only where given, so the entries of 'tile: auto' cases before shapes stay valid)
         (c.shape_auto      ? "|shape=auto"
          : c.shape.empty() ? ""
                            : "|shape=" + c.shape);
}

// "tile=128 shape=128x128x8/8x8/2 team=0"; the shape only where the case names or searches one.
std::string describe_choice(const Case& c, bool with_shape) {
  return "tile=" + std::to_string(c.tile) + (with_shape ? " shape=" + c.shape : "") +
         " team=" + std::to_string(c.team_size);
}

void warn(const std::string& message) {
  std::cerr << "miniapp: warning: " << message << std::endl;
}

} // namespace

// The cache file is state any process (or person) may have damaged: anything but a JSON object
// within the bounds of core/state_file.hpp is rebuilt, with a warning, never trusted or fatal.
nlohmann::json read_autotune_cache(const std::string& path) {
  std::string why;
  nlohmann::json j = read_state_json(path, kAutotuneCacheBytes, 2, &why);
  if (j.is_null() && why.empty())
    return nlohmann::json::object(); // no cache yet
  if (!j.is_object()) {
    warn(path + ": " + (why.empty() ? "not a JSON object" : why) +
         "; the autotune cache is rebuilt");
    return nlohmann::json::object();
  }
  // Only entries shaped as autotune() writes them are kept, so a rewrite carries nothing else.
  nlohmann::json out = nlohmann::json::object();
  for (auto e = j.begin(); e != j.end() && out.size() < kAutotuneCacheEntries; ++e)
    if (e.key().size() <= 1024 && e->is_object() && e->size() <= 5 &&
        std::all_of(e->begin(), e->end(),
                    [](const nlohmann::json& v) { return v.is_number() || v.is_string(); }))
      out[e.key()] = *e;
  return out;
}

// A cached entry is used only when its values are integers the search itself could have chosen,
// and its shape (a name; absent in entries without one: the default) one of the shapes searched
// at its tile; "" when it is usable, else why not.
std::string check_autotune_entry(const nlohmann::json& entry, const std::vector<int>& tiles,
                                 const std::vector<int>& teams, const Case& c,
                                 const std::string& backend) {
  if (!entry.is_object())
    return "not an object";
  const std::pair<const char*, const std::vector<int>*> fields[] = {{"tile", &tiles},
                                                                    {"team_size", &teams}};
  for (const auto& [name, allowed] : fields) {
    if (!entry.contains(name) || !entry[name].is_number_integer())
      return std::string(name) + " is missing or not an integer";
    const auto v = entry[name].get<std::int64_t>();
    if (std::find(allowed->begin(), allowed->end(), v) == allowed->end())
      return std::string(name) + " " + std::to_string(v) + " is not a candidate";
  }
  if (entry.contains("shape") && !entry["shape"].is_string())
    return "shape is not a string";
  const std::string shape = entry.contains("shape") ? entry["shape"].get<std::string>() : "";
  const auto shapes = shape_candidates(c, backend, entry["tile"].get<int>());
  if (std::find(shapes.begin(), shapes.end(), shape) == shapes.end())
    return shape.empty() ? "shape is missing" : "shape '" + shape + "' is not a candidate";
  return "";
}

namespace {

double time_once(const Case& c, const std::string& backend) {
  auto k = make_kernel_case(c, backend);
  k->upload();
  // The runner's rule and helper (core/timing.hpp), so the tuner ranks what the run will measure.
  return summarize(time_samples([&] { k->fence(); }, [&] { k->run(); }, 1, 3,
                                Sampling{kernel_sample_seconds}, [] { return true; })
                       .seconds)
      .median;
}

// A cached choice is timed once more before it is used. An entry's time far from this one says
// the entry is not this machine's measurement (edited: 1e5x off, a millionth, 1e300; or the
// machine changed under one key): the reason is returned, and the case is searched again. How
// far is far: other processes only slow a timing, and on an oversubscribed host a lot (openmp
// cases under a load of 25 on 2 CPUs timed over 100x their search's best), so the entry may be
// faster than now by up to kMostSlower; a search on a loaded host records slow times (a 32^3
// matmul's search at a load of 8 recorded over 10x its quiet one), so it may be slower by up to
// kMostFaster. An entry searched beside other work (its host_others above kBusyOthersCpus) is used
// whatever its time, with `busy` set: its time says nothing of what the machine does, and its
// choice is one the search could make (check_autotune_entry). Before, miniapp-bench's search of a
// 32^3 tiled float64 product under a load of about 7 on 2 CPUs was searched again by the `miniapp
// run` after it, which chose another tile, so the two named the case differently.
constexpr double kMostSlower = 10000, kMostFaster = 1000;
std::string far_from_now(const nlohmann::json& entry, const Case& choice,
                         const std::string& backend, bool& busy) {
  const auto s = entry.find("seconds");
  if (s == entry.end() || !s->is_number() || !(s->get<double>() > 0) ||
      !std::isfinite(s->get<double>()))
    return "seconds is missing or not a time";
  const double cached = s->get<double>();
  double now = 0;
  try {
    now = time_once(choice, backend);
  } catch (const std::exception& e) {
    return std::string("its choice does not run now: ") + e.what();
  }
  if (now <= cached * kMostSlower && now * kMostFaster >= cached)
    return "";
  const auto searched_beside = entry.find("host_others");
  if (searched_beside != entry.end() && searched_beside->is_number() &&
      searched_beside->get<double>() > kBusyOthersCpus) {
    busy = true;
    return "";
  }
  return "its time " + fmt("%.3g", cached) + " s is far from " + fmt("%.3g", now) + " s timed now";
}

// Whether the case has an 'auto' value for the search to choose.
bool searches_something(const Case& c) {
  return c.tile_auto || c.team_auto || c.shape_auto;
}
} // namespace

Case autotune(const Case& c, const std::string& backend) {
  return searches_something(c) ? autotune(c, backend, device_info(backend).name) : c;
}

Case autotune(const Case& c, const std::string& backend, const std::string& device) {
  if (!searches_something(c))
    return c;
  const bool gpu = is_gpu_backend(backend);
  const int conc = device_info(backend).concurrency;
  const std::vector<int> tiles = tile_candidates(c, gpu), teams = team_candidates(c, gpu, conc);
  const std::string key = cache_key(c, backend, device, conc);
  const bool with_shape = c.shape_auto || !c.shape.empty();
  nlohmann::json cache = read_autotune_cache(autotune_cache_path());
  Case best = c;
  best.tile_auto = best.team_auto = best.shape_auto = false;
  if (cache.contains(key)) {
    const std::string why = check_autotune_entry(cache[key], tiles, teams, c, backend);
    if (why.empty()) {
      best.tile = cache[key]["tile"].get<int>();
      best.team_size = cache[key]["team_size"].get<int>();
      best.shape = cache[key].value("shape", std::string());
      best.tuning = "cached: " + describe_choice(best, with_shape);
      bool busy = false;
      const std::string far = far_from_now(cache[key], best, backend, busy);
      if (busy)
        best.tuning += " (its time, far from now's, not trusted: other work ran beside the search)";
      if (far.empty())
        return best;
      warn("ignoring the autotune cache entry '" + key + "' (" + far + "); searching again");
    } else {
      warn("ignoring the autotune cache entry '" + key + "' (" + why + "); searching again");
    }
  }
  double best_t = std::numeric_limits<double>::infinity();
  std::string tried;
  const CpuTimes search_start = cpu_times_now();
  for (int tile : tiles)
    for (const std::string& shape : shape_candidates(c, backend, tile))
      for (int team : teams) {
        Case trial = best;
        trial.tile = tile;
        trial.shape = shape;
        trial.team_size = team;
        try {
          const double t = time_once(trial, backend);
          // (shape names hold '/' themselves: a searched shape's entries are comma-separated)
          tried += " " + std::to_string(tile) + (c.shape_auto ? "," + shape + "," : "/") +
                   std::to_string(team);
          if (t < best_t) {
            best_t = t;
            best.tile = tile;
            best.shape = shape;
            best.team_size = team;
          }
        } catch (const std::exception&) {
          // a configuration the backend refuses (scratch, team size) is simply not a candidate
        }
      }
  if (!std::isfinite(best_t))
    throw std::runtime_error("autotune: no configuration of " + c.id() + " ran");
  best.tuning = std::string(c.shape_auto ? "searched tile,shape,team" : "searched tile/team") +
                tried + ": chose " + describe_choice(best, with_shape);
  cache[key] = {{"tile", best.tile}, {"team_size", best.team_size}, {"seconds", best_t}};
  const double others = others_cpus(search_start, cpu_times_now());
  if (others >= 0)
    cache[key]["host_others"] = others;
  if (with_shape)
    cache[key]["shape"] = best.shape;
  try {
    const std::string path = autotune_cache_path();
    std::filesystem::create_directories(std::filesystem::path(path).parent_path());
    // (bytes that are not UTF-8 in a device or partition name are replaced, never fatal)
    write_file_atomically(
        path, cache.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
  } catch (const std::exception&) {
    best.tuning += " (cache not writable)";
  }
  return best;
}

} // namespace miniapp
