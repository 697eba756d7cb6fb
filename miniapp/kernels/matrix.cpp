#include "kernels/matrix.hpp"

#include "core/compat.hpp"

#include <cstdlib>
#include <new>

namespace miniapp::kernels {

namespace {
#if defined(KOKKOS_ENABLE_CUDA)
using PinnedSpace = Kokkos::CudaHostPinnedSpace;
#elif defined(KOKKOS_ENABLE_HIP)
using PinnedSpace = compat::HipHostPinnedSpace;
#endif
} // namespace

bool pinned_memory_available() {
#if defined(KOKKOS_ENABLE_CUDA) || defined(KOKKOS_ENABLE_HIP)
  return true;
#else
  return false;
#endif
}

std::shared_ptr<void> allocate_host(std::size_t bytes, bool pinned) {
  if (bytes == 0)
    bytes = 1;
#if defined(KOKKOS_ENABLE_CUDA) || defined(KOKKOS_ENABLE_HIP)
  if (pinned) {
    void* p = Kokkos::kokkos_malloc<PinnedSpace>("miniapp::pinned", bytes);
    return std::shared_ptr<void>(p, [](void* q) { Kokkos::kokkos_free<PinnedSpace>(q); });
  }
#else
  (void)pinned; // host backends use the device memory directly: nothing to pin
#endif
  void* p = std::aligned_alloc(64, (bytes + 63) / 64 * 64);
  if (!p)
    throw std::bad_alloc();
  return std::shared_ptr<void>(p, [](void* q) { std::free(q); });
}

} // namespace miniapp::kernels
