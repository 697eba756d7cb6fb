#pragma once
// Ceilings measured earlier on this machine, reused when the config asks (`reuse_ceilings: true`):
// measuring them can take longer than the cases themselves. A JSON file beside the autotune cache
// (ceilings.json in MINIAPP_CACHE_DIR or ~/.cache/miniapp), keyed by the machine (host and
// device), the backend, its concurrency and the build (version, git revision, compiler), so a
// different machine, thread count or build never reuses another's figures.
#include <nlohmann/json.hpp>

#include <optional>
#include <string>

namespace miniapp {

std::string ceiling_cache_path();
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
  nlohmann::json load() const; // a damaged file reads as empty (it is rebuilt by put)
  std::string path_, machine_;
};

} // namespace miniapp
