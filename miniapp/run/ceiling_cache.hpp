#pragma once
// Ceilings measured earlier on this machine, reused when the config asks (`reuse_ceilings: true`):
// measuring them can take longer than the cases themselves. A JSON file beside the autotune cache
// (ceilings.json in MINIAPP_CACHE_DIR or ~/.cache/miniapp), keyed by the machine (host and
// device), the backend, its concurrency and the build (version, git revision, compiler), so a
// different machine, thread count or build never reuses another's figures.
#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

namespace miniapp {

std::string ceiling_cache_path();

// The file is read back as hostile input (core/state_file.hpp): at most this size, and of what it
// holds only machines of typed figures are kept (a machine holds 4 levels and a GEMM figure per
// shape its configs ran; a file of 64 machines of 256 figures is about 2 MB).
inline constexpr std::uintmax_t kCeilingCacheBytes = 4u << 20;
inline constexpr std::size_t kCeilingCacheMachines = 64, kCeilingCacheFigures = 256;
inline constexpr std::size_t kCeilingCacheKeyBytes = 1024;
// Machines of figures nest 2 deep; the brackets of a figure's name ("[GB/s]") count as one more
// to the reader's bound, which counts brackets in strings too.
inline constexpr int kCeilingCacheDepth = 4;
// Larger than any figure a measurement gives (GB/s or GFLOP/s: an H100's HBM reads 3e3 GB/s, its
// float64 GEMM 6e4 GFLOP/s; 1e9 leaves room for every machine to come): a cached 1e300 is not one.
inline constexpr double kMostCeiling = 1e9;
bool plausible_ceiling(double value);
// The key of this machine, backend and build: "host|device|backend|concurrency=N|build=...".
std::string ceiling_machine_key(const std::string& backend);

class CeilingCache {
public:
  CeilingCache(std::string path, std::string machine_key);
  // The figure stored under `what` (e.g. "L2 copy bandwidth [GB/s]") for this machine, if any.
  std::optional<double> get(const std::string& what) const;
  // Stores the figure and rewrites the file atomically; false when it cannot be written.
  bool put(const std::string& what, double value);
  const std::string& path() const { return path_; }

private:
  // A damaged file reads as empty (it is rebuilt by put), with one warning naming it.
  nlohmann::json load() const;
  std::string path_, machine_;
  mutable bool warned_ = false;
};

} // namespace miniapp
