// A Kokkos tools library for the tests: appends each kernel and region name Kokkos reports to the
// file named by MINIAPP_TOOL_LOG, one per line ("kernel NAME", "region NAME"). Loaded through
// KOKKOS_TOOLS_LIBS (Kokkos 4's variable; miniapp passes it on to Kokkos 3.4's
// KOKKOS_PROFILE_LIBRARY). The entry points are Kokkos' profiling interface, C symbols.
#include <cstdint>
#include <cstdio>
#include <cstdlib>

namespace {
std::FILE* out = nullptr;

void record(const char* what, const char* name) {
  if (out)
    std::fprintf(out, "%s %s\n", what, name);
}
} // namespace

extern "C" {
void kokkosp_init_library(int, std::uint64_t, std::uint32_t, void*) {
  const char* path = std::getenv("MINIAPP_TOOL_LOG");
  out = path ? std::fopen(path, "a") : nullptr;
  record("init", "library");
}
void kokkosp_finalize_library() {
  record("finalize", "library");
  if (out)
    std::fclose(out);
  out = nullptr;
}
void kokkosp_begin_parallel_for(const char* name, std::uint32_t, std::uint64_t*) {
  record("kernel", name);
}
void kokkosp_end_parallel_for(std::uint64_t) {}
void kokkosp_push_profile_region(const char* name) {
  record("region", name);
}
void kokkosp_pop_profile_region() {}
}
