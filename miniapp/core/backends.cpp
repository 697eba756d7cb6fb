#include "core/backends.hpp"

#include <algorithm>
#include <cctype>

namespace miniapp {

bool is_gpu_backend(const std::string& backend) {
  return backend == "cuda" || backend == "hip";
}

const std::vector<std::string>& known_backends() {
  static const std::vector<std::string> names = {"serial", "openmp", "cuda", "hip"};
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
