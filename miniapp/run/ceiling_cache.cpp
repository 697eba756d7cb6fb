#include "run/ceiling_cache.hpp"

#include "core/device_info.hpp"
#include "core/files.hpp"
#include "core/sinks.hpp"
#include "core/state_file.hpp"
#include "core/version.hpp"
#include "run/autotune.hpp"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>

namespace miniapp {

bool plausible_ceiling(double value) {
  return std::isfinite(value) && value > 0 && value <= kMostCeiling;
}

std::string ceiling_cache_path() {
  return (std::filesystem::path(autotune_cache_path()).parent_path() / "ceilings.json").string();
}

std::string ceiling_machine_key(const std::string& backend) {
  const DeviceInfo d = device_info(backend);
  return host_name() + "|" + d.name + "|" + backend +
         "|concurrency=" + std::to_string(d.concurrency) + "|build=" + version() + "+" +
         git_revision() + " " + __VERSION__;
}

CeilingCache::CeilingCache(std::string path, std::string machine_key)
    : path_(std::move(path)), machine_(std::move(machine_key)) {}

nlohmann::json CeilingCache::load() const {
  std::string why;
  const nlohmann::json j = read_state_json(path_, kCeilingCacheBytes, kCeilingCacheDepth, &why);
  // Only what get() can use is kept, so put() rewrites nothing else: a list nested 5000 deep,
  // re-indented at each level on every rewrite, grew a 10 KB file to 50 MB in one run.
  nlohmann::json out = nlohmann::json::object();
  if (!j.is_object()) {
    // A damaged file (a key given twice, not JSON, a FIFO...) is said once, as the autotune
    // cache's is; the ceilings are then measured and the file rewritten by put().
    if (!(j.is_null() && why.empty()) && !warned_) {
      std::cerr << "miniapp: warning: " << for_terminal(path_) << ": "
                << (why.empty() ? "not a JSON object" : why)
                << "; the ceiling cache is read as empty and its ceilings measured again"
                << std::endl;
      warned_ = true;
    }
    return out;
  }
  for (auto m = j.begin(); m != j.end() && out.size() < kCeilingCacheMachines; ++m) {
    if (!m->is_object() || m.key().size() > kCeilingCacheKeyBytes)
      continue;
    nlohmann::json figures = nlohmann::json::object();
    for (auto v = m->begin(); v != m->end() && figures.size() < kCeilingCacheFigures; ++v)
      if (v.key().size() <= kCeilingCacheKeyBytes && v->is_number() &&
          plausible_ceiling(v->get<double>()))
        figures[v.key()] = *v;
    if (!figures.empty())
      out[m.key()] = std::move(figures);
  }
  return out;
}

std::optional<double> CeilingCache::get(const std::string& what) const {
  const nlohmann::json j = load();
  const auto m = j.find(machine_);
  if (m == j.end() || !m->is_object())
    return std::nullopt;
  const auto v = m->find(what);
  if (v == m->end())
    return std::nullopt; // (load() kept only figures a measurement could give)
  return v->get<double>();
}

bool CeilingCache::put(const std::string& what, double value) {
  nlohmann::json j = load();
  if (!plausible_ceiling(value))
    return false;
  if (!j.contains(machine_) && j.size() >= kCeilingCacheMachines)
    j.erase(j.begin()); // (keys in name order: a full file drops the first machine's figures)
  if (!j[machine_].is_object())
    j[machine_] = nlohmann::json::object();
  j[machine_][what] = value;
  try {
    std::filesystem::create_directories(std::filesystem::path(path_).parent_path());
    // (bytes that are not UTF-8 in a host or device name are replaced, never fatal)
    write_file_atomically(path_,
                          j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
  } catch (const std::exception&) {
    return false;
  }
  return true;
}

} // namespace miniapp
