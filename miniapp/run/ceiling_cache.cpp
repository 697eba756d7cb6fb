#include "run/ceiling_cache.hpp"

#include "core/device_info.hpp"
#include "core/files.hpp"
#include "core/input_file.hpp"
#include "core/version.hpp"
#include "run/autotune.hpp"

#include <filesystem>

namespace miniapp {

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

// The cache is {machine: {figure: value}}, a few hundred bytes a machine and build: 4 MiB is
// thousands of them. Anything else (a FIFO, which made `run` wait for ever, a device, a larger or
// deeper file) reads as empty and is replaced by the next put.
constexpr std::uint64_t kMaxCeilingCacheBytes = 4u << 20;

nlohmann::json CeilingCache::load() const {
  try {
    nlohmann::json j = read_json_file(path_, kMaxCeilingCacheBytes, 2, 100000);
    if (j.is_object())
      return j;
  } catch (const InputFileError&) {
  }
  return nlohmann::json::object();
}

std::optional<double> CeilingCache::get(const std::string& what) const {
  const nlohmann::json j = load();
  const auto m = j.find(machine_);
  if (m == j.end() || !m->is_object())
    return std::nullopt;
  const auto v = m->find(what);
  if (v == m->end() || !v->is_number() || !(v->get<double>() > 0))
    return std::nullopt; // absent or not a figure a measurement could give
  return v->get<double>();
}

bool CeilingCache::put(const std::string& what, double value) {
  nlohmann::json j = load();
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
