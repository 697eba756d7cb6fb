#pragma once
// The one place where Kokkos 3.4.01 and Kokkos 4.x/5.x differ for this project.
#include <Kokkos_Core.hpp>

#include <string>
#include <vector>

#ifndef KOKKOS_VERSION
#error "Kokkos_Core.hpp did not define KOKKOS_VERSION"
#endif

namespace miniapp::compat {

inline std::string kokkos_version_string() {
  const int v = KOKKOS_VERSION; // e.g. 30401, 40700, 50000
  return std::to_string(v / 10000) + "." + std::to_string((v / 100) % 100) + "." +
         std::to_string(v % 100);
}

// Scoped Kokkos Tools region: ScopedRegion exists only from 4.x; push/pop works everywhere.
class ScopedRegion {
public:
  explicit ScopedRegion(const std::string& name) { Kokkos::Profiling::pushRegion(name); }
  ~ScopedRegion() { Kokkos::Profiling::popRegion(); }
  ScopedRegion(const ScopedRegion&) = delete;
  ScopedRegion& operator=(const ScopedRegion&) = delete;
};

// concurrency() became an instance member in 4.x (the static one is deprecated).
template <class ExecSpace>
int concurrency(const ExecSpace& space) {
#if KOKKOS_VERSION >= 40000
  return space.concurrency();
#else
  (void)space;
  return ExecSpace::concurrency();
#endif
}

// Kokkos command-line flags whose names changed between 3.4 and 4.x. Every spelling a user may
// type (either version's) maps to the name the linked Kokkos parses; an empty name means the
// linked Kokkos has no such setting, so the flag is dropped with `note` (printed by the caller).
// Flags both versions spell alike are listed too: this is the whole set miniapp passes through.
struct KokkosFlag {
  const char* spelling;
  const char* linked; // what this Kokkos knows; "" = nothing
  enum Value { none, integer, text } value;
  const char* note;
};

inline const std::vector<KokkosFlag>& kokkos_flags() {
#if KOKKOS_VERSION >= 40000
  static const std::vector<KokkosFlag> flags {
    {"--kokkos-num-threads", "--kokkos-num-threads", KokkosFlag::integer, ""},
        {"--kokkos-threads", "--kokkos-num-threads", KokkosFlag::integer, ""},
        {"--kokkos-device-id", "--kokkos-device-id", KokkosFlag::integer, ""},
        {"--kokkos-device", "--kokkos-device-id", KokkosFlag::integer, ""},
        {"--kokkos-num-devices", "--kokkos-num-devices", KokkosFlag::text, ""},
        {"--kokkos-ndevices", "--kokkos-num-devices", KokkosFlag::text, ""},
        {"--kokkos-map-device-id-by", "--kokkos-map-device-id-by", KokkosFlag::text, ""},
        {"--kokkos-numa", "", KokkosFlag::integer,
         "Kokkos 4 has no NUMA setting; --kokkos-numa ignored"},
        {"--kokkos-tools-libs", "--kokkos-tools-libs", KokkosFlag::text, ""},
        {"--kokkos-tools-library", "--kokkos-tools-libs", KokkosFlag::text, ""},
        {"--kokkos-print-configuration", "--kokkos-print-configuration", KokkosFlag::none, ""},
#else
  static const std::vector<KokkosFlag> flags{
      {"--kokkos-num-threads", "--kokkos-threads", KokkosFlag::integer, ""},
      {"--kokkos-threads", "--kokkos-threads", KokkosFlag::integer, ""},
      {"--kokkos-device-id", "--kokkos-device-id", KokkosFlag::integer, ""},
      {"--kokkos-device", "--kokkos-device-id", KokkosFlag::integer, ""},
      {"--kokkos-num-devices", "--kokkos-num-devices", KokkosFlag::text, ""},
      {"--kokkos-ndevices", "--kokkos-num-devices", KokkosFlag::text, ""},
      // 3.4 has no mapping policy; miniapp itself gives each rank local rank mod devices.
      {"--kokkos-map-device-id-by", "", KokkosFlag::text,
       "Kokkos 3.4 has no --kokkos-map-device-id-by; miniapp maps one device per local rank"},
      {"--kokkos-numa", "--kokkos-numa", KokkosFlag::integer, ""},
      {"--kokkos-tools-libs", "--kokkos-tools-library", KokkosFlag::text, ""},
      {"--kokkos-tools-library", "--kokkos-tools-library", KokkosFlag::text, ""},
      {"--kokkos-print-configuration", "", KokkosFlag::none,
       "Kokkos 3.4 has no --kokkos-print-configuration; `miniapp info` prints the configuration"},
#endif
        {"--kokkos-disable-warnings", "--kokkos-disable-warnings", KokkosFlag::none, ""},
        {"--kokkos-tune-internals", "--kokkos-tune-internals", KokkosFlag::none, ""},
        {"--kokkos-tools-args", "--kokkos-tools-args", KokkosFlag::text, ""},
        {"--kokkos-tools-help", "--kokkos-tools-help", KokkosFlag::none, ""}, {
      "--kokkos-help", "--kokkos-help", KokkosFlag::none, ""
    }
  };
  return flags;
}

} // namespace miniapp::compat
