#pragma once
// Matrices are row-major (LayoutRight) on every backend, as in the source programs. A DualMatrix
// pairs the backend's copy with a host copy; on host backends both are the same memory.
#include "core/compat.hpp"

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace miniapp::kernels {

template <class T, class MemSpace>
using Matrix = Kokkos::View<T**, Kokkos::LayoutRight, MemSpace>;
template <class T>
using HostMatrix =
    Kokkos::View<T**, Kokkos::LayoutRight, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>;

// Host staging memory, optionally pinned (page-locked) where the backend has such a space.
std::shared_ptr<void> allocate_host(std::size_t bytes, bool pinned);
bool pinned_memory_available();

template <class T, class Exec>
struct DualMatrix {
  using memory_space = typename Exec::memory_space;
  static constexpr bool zero_copy =
      Kokkos::SpaceAccessibility<Kokkos::HostSpace, memory_space>::accessible;

  // The backend's memory as bytes, d starting at the first 512-byte boundary in it. A Kokkos 3.x
  // View's data starts 128 bytes past its allocation (the allocation header), so a float64 tile
  // row of 256 bytes straddled two 256-byte blocks: the tiled transpose ran 4% slower at 8192
  // (H100: 396 against 380 us, 90.1% against 94.1% of copy; the raw CUDA tile, started 128 bytes
  // in, lost the same: scripts/maintainer/transpose_anchor.cu --offset 128; issue 26).
  static constexpr std::size_t alignment = 512;
  Kokkos::View<unsigned char*, memory_space> storage;
  Matrix<T, memory_space> d; // unmanaged: storage owns the memory
  HostMatrix<T> h;
  std::shared_ptr<void> host_buffer;

  DualMatrix() = default;
  DualMatrix(const std::string& label, std::int64_t rows, std::int64_t cols, bool pinned)
      : storage(Kokkos::view_alloc(Kokkos::WithoutInitializing, label),
                sizeof(T) * std::size_t(rows) * std::size_t(cols) + alignment) {
    const auto at = reinterpret_cast<std::uintptr_t>(storage.data());
    d = Matrix<T, memory_space>(reinterpret_cast<T*>((at + alignment - 1) / alignment * alignment),
                                rows, cols);
    if (zero_copy) {
      h = HostMatrix<T>(reinterpret_cast<T*>(d.data()), rows, cols);
    } else {
      host_buffer = allocate_host(sizeof(T) * std::size_t(rows) * std::size_t(cols), pinned);
      h = HostMatrix<T>(static_cast<T*>(host_buffer.get()), rows, cols);
    }
  }
  void upload() const {
    if (!zero_copy)
      Kokkos::deep_copy(d, h);
  }
  void download() const {
    if (!zero_copy)
      Kokkos::deep_copy(h, d);
  }
};

} // namespace miniapp::kernels
