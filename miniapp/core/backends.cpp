#include "core/backends.hpp"

#include <algorithm>
#include <cctype>

namespace miniapp {

namespace {
// The one list of backends: every Kokkos execution space a config or a results file may name,
// whether it runs on a GPU, and whether this project builds it (a results file written by another
// Kokkos build may name threads or hpx: host backends all the same).
struct BackendRow {
  const char* name;
  bool gpu;
  bool supported;
};
constexpr BackendRow kBackends[] = {{"serial", false, true},   {"openmp", false, true},
                                    {"cuda", true, true},      {"hip", true, true},
                                    {"threads", false, false}, {"hpx", false, false}};

const BackendRow* find_backend(const std::string& name) {
  for (const BackendRow& b : kBackends)
    if (name == b.name)
      return &b;
  return nullptr;
}
} // namespace

bool is_gpu_backend(const std::string& backend) {
  const BackendRow* b = find_backend(backend);
  return b && b->gpu;
}

bool host_backend(const std::string& backend) {
  const BackendRow* b = find_backend(backend);
  return b && !b->gpu;
}

const std::vector<std::string>& known_backends() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> v;
    for (const BackendRow& b : kBackends)
      if (b.supported)
        v.push_back(b.name);
    return v;
  }();
  return names;
}

std::vector<std::string> compiled_backends() {
  std::vector<std::string> names;
#ifdef KOKKOS_ENABLE_SERIAL
  names.push_back("serial");
#endif
#ifdef KOKKOS_ENABLE_OPENMP
  names.push_back("openmp");
#endif
#ifdef KOKKOS_ENABLE_CUDA
  names.push_back("cuda");
#endif
#ifdef KOKKOS_ENABLE_HIP
  names.push_back("hip");
#endif
  return names;
}

std::string built_kokkos_version() {
  return compat::kokkos_version_string();
}

std::string default_backend() {
  std::string name = Kokkos::DefaultExecutionSpace::name();
  std::transform(name.begin(), name.end(), name.begin(),
                 [](unsigned char ch) { return char(std::tolower(ch)); });
  return name;
}

std::string resolve_backend(const std::string& name) {
  return name == "auto" ? default_backend() : name;
}

} // namespace miniapp
