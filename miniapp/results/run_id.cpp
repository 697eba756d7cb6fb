#include "results/run_id.hpp"

#include "plan/config_hash.hpp"

#include <cctype>
#include <cstdio>
#include <ctime>
#include <random>
#include <unistd.h>

namespace miniapp {

std::string new_run_id(const std::string& host) {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%SZ", &tm);
  std::random_device rd;
  char bits[16];
  std::snprintf(bits, sizeof bits, "%08x", static_cast<unsigned>(rd()));
  std::string h;
  for (char c : host) // the id goes into file names and shell commands: keep it plain
    h += (std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_') ? c : '_';
  if (h.empty())
    h = "host";
  return h.substr(0, 64) + "-" + stamp + "-" + std::to_string(::getpid()) + "-" + bits;
}

std::string run_id_of(const nlohmann::json& doc) {
  const auto text = [](const nlohmann::json& o, const char* key) -> std::string {
    if (!o.is_object())
      return "";
    const auto it = o.find(key);
    return it != o.end() && it->is_string() ? it->get<std::string>() : "";
  };
  const nlohmann::json meta =
      doc.is_object() && doc.contains("metadata") ? doc["metadata"] : nlohmann::json();
  const std::string id = text(meta, "run_id");
  if (!id.empty())
    return id;
  const nlohmann::json config =
      doc.is_object() && doc.contains("config") ? doc["config"] : nlohmann::json();
  return "legacy-" + fnv1a_hex(text(meta, "host_name") + "\n" + text(meta, "start_time") + "\n" +
                               text(meta, "config_hash") + "\n" + text(config, "name"));
}

} // namespace miniapp
