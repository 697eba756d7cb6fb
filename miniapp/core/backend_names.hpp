#pragma once
// Names of the backends: which this build compiled in, which a config may name, which run on a GPU.
// No Kokkos header: the layers above the kernels (config, plan, results, compare, report, the
// commands) need the names only, and a file that reaches no Kokkos header skips a CUDA or HIP
// build's device passes (cmake/HostOnlySources.cmake). Dispatch from a name to an execution space
// is core/backends.hpp.
#include <stdexcept>
#include <string>
#include <vector>

namespace miniapp {

std::vector<std::string> compiled_backends(); // e.g. {"serial", "openmp"}
// Every backend a build may compile in (a config may name any; the plan refuses one not compiled).
const std::vector<std::string>& known_backends();
std::string default_backend();      // the name of Kokkos' default execution space
std::string built_kokkos_version(); // the Kokkos this build compiled against, e.g. "3.4.1"
std::string resolve_backend(const std::string& name); // "auto" -> default_backend()
// Whether the backend runs on a GPU (cuda, hip): kernel shapes, searches, the parallelism a run
// reports and a job's resources differ there.
bool is_gpu_backend(const std::string& backend);
// serial, openmp, threads, hpx: device memory is host memory there.
bool host_backend(const std::string& backend);

struct UnknownBackend : std::runtime_error {
  using std::runtime_error::runtime_error;
};

} // namespace miniapp
