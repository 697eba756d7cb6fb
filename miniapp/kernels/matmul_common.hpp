#pragma once
// What the matmul kernels share (kernels/matmul.hpp lists them): the unroll pragma of the device
// compilers and 16-byte fragments of team scratch.
#include <Kokkos_Core.hpp>

#include <cstdint>

// Full unrolling of the fixed-trip loops of the register-blocked kernel, where the device compiler
// understands the pragma (nvcc, hipcc); host compilers unroll by their own heuristics.
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
#define MINIAPP_UNROLL _Pragma("unroll")
#define MINIAPP_NO_UNROLL _Pragma("unroll 1")
#else
#define MINIAPP_UNROLL
#define MINIAPP_NO_UNROLL
#endif

namespace miniapp::kernels {

// 16 bytes of T: one shared-memory load instruction (LDS.128 on NVIDIA, ds_read_b128 on AMD) for
// 4 floats or 2 doubles of a fragment, instead of 4 or 2 scalar loads.
template <class T>
struct alignas(16) Fragment {
  static constexpr int width = int(16 / sizeof(T));
  T v[width];
};

// Whether every row of the 2-D view X is whole 16-byte runs of T, read or written one Fragment at a
// time: columns and row stride multiples of the fragment's width, columns contiguous, data 16-byte
// aligned.
template <class T, class View>
bool rows_of_fragments(const View& X) {
  constexpr std::size_t V = Fragment<T>::width;
  return X.extent(1) % V == 0 && X.stride(1) == 1 && X.stride(0) % V == 0 &&
         reinterpret_cast<std::uintptr_t>(X.data()) % 16 == 0;
}

// `groups` fragments starting at `first`, `step` elements apart, into out[groups * width].
template <int groups, class T>
KOKKOS_INLINE_FUNCTION void fragments(const T* first, int step, T* out) {
  constexpr int V = Fragment<T>::width;
  MINIAPP_UNROLL
  for (int g = 0; g < groups; ++g) {
    const Fragment<T> f = *reinterpret_cast<const Fragment<T>*>(first + g * step);
    MINIAPP_UNROLL
    for (int v = 0; v < V; ++v)
      out[g * V + v] = f.v[v];
  }
}

// Threads of a team that walks one row of a matrix (the padded copies and the split-K sums of the
// GPU kernel): 8 warps (4 on AMD's 64-wide wavefronts) along a row, a row a team.
inline constexpr int row_team_size = 256;

template <class T, int TWc>
struct RowFragments {
  static constexpr int V = Fragment<T>::width;
  static constexpr bool used = TWc > 0 && TWc % V == 0;
};

} // namespace miniapp::kernels
