#pragma once
// Matrices are row-major (LayoutRight) on every backend, as in the source programs. A DualMatrix
// pairs the backend's copy with a host copy; on host backends both are the same memory.
#include "core/compat.hpp"

#include <Kokkos_Core.hpp>

#include <cstddef>
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

  Matrix<T, memory_space> d;
  HostMatrix<T> h;
  std::shared_ptr<void> host_buffer;

  DualMatrix() = default;
  DualMatrix(const std::string& label, std::int64_t rows, std::int64_t cols, bool pinned)
      : d(Kokkos::view_alloc(Kokkos::WithoutInitializing, label), rows, cols) {
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
