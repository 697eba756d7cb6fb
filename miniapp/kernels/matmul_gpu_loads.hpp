#pragma once
// matmul tiled_rb, the GPU shape's global loads: how a thread reads its share of a k-tile (16
// bytes or an element at a time, tested or not), and which operands take which form of the
// kernel (matmul_tiled_rb_gpu.hpp).
#include "kernels/matmul_common.hpp"
#include "kernels/matmul_split_k.hpp"

#include <Kokkos_Core.hpp>

#include <cstddef>

namespace miniapp::kernels {

// How a thread of the pipelined kernel reads its share of a k-tile from global memory: element by
// element (any shape, any alignment), or, with Vec, 16 bytes at a time (one LDG.128 for 4 floats
// or 2 doubles, and one 16-byte scratch store for B) where rows are whole 16-byte runs: K and N
// multiples of V, row strides too, data 16-byte aligned (vector_loads_fit below). Static members,
// not locals: the extended lambda reads them inside `if constexpr`.
// Which element types take 16-byte loads at all: float32 (and int32). With them the float64 shapes
// spill more and ran slower on the H100, 24.4% against 27.9% of cuBLAS DGEMM at 4096 (run 11).
template <class T>
inline constexpr bool vector_loads_for = sizeof(T) == 4;

template <class T, int BM, int BN, int BK, int threads, bool Vec>
struct PipelinedLoads {
  static constexpr int V = Fragment<T>::width;
  static constexpr bool vec = Vec && vector_loads_for<T> && BK % V == 0 && BN % V == 0;
  static constexpr int unit = vec ? V : 1;                                 // elements per load
  static constexpr int a_units = BM * BK / unit, b_units = BK * BN / unit; // per k-tile
  static constexpr int CA = (a_units + threads - 1) / threads;             // loads per thread
  static constexpr int CB = (b_units + threads - 1) / threads;
  // Whether load l of a k-tile exists (the last round of loads may be partial).
  KOKKOS_INLINE_FUNCTION static constexpr bool a_has(int l) {
    return a_units % threads == 0 || l < a_units;
  }
  KOKKOS_INLINE_FUNCTION static constexpr bool b_has(int l) {
    return b_units % threads == 0 || l < b_units;
  }
  // Whether a thread's loads of a k-tile are whole rounds at fixed row offsets: then, on a
  // matrix made of whole tiles (`Full` below), each load is a base pointer plus a constant, with
  // no bounds test and no index arithmetic per load.
  static constexpr bool rounds = a_units % threads == 0 && b_units % threads == 0 &&
                                 threads % (BK / unit) == 0 && threads % (BN / unit) == 0;
};

// U elements of X from row r, column c into out: one 16-byte load (Vec, U = 16 / sizeof(T)) or
// one element (U = 1); zeros where `in` is false (past the matrix).
template <bool Vec, int U, class View, class T>
KOKKOS_INLINE_FUNCTION void load_unit(const View& X, const T* ptr, std::size_t ld, int r, int c,
                                      bool in, T* out) {
  if constexpr (Vec) {
    Fragment<T> f = {};
    if (in)
      f = *reinterpret_cast<const Fragment<T>*>(ptr + r * ld + c);
    MINIAPP_UNROLL
    for (int v = 0; v < U; ++v)
      out[v] = f.v[v];
  } else {
    out[0] = in ? X(r, c) : T(0);
  }
}

// U elements at p (inside the matrix, rows contiguous) into out: one 16-byte load or one element.
template <bool Vec, int U, class T>
KOKKOS_INLINE_FUNCTION void load_at(const T* p, T* out) {
  if constexpr (Vec) {
    const Fragment<T> f = *reinterpret_cast<const Fragment<T>*>(p);
    MINIAPP_UNROLL
    for (int v = 0; v < U; ++v)
      out[v] = f.v[v];
  } else {
    out[0] = *p;
  }
}

KOKKOS_INLINE_FUNCTION int at_most(int x, int limit) {
  return x < limit ? x : limit;
}

// U zeros into out (a load past the matrix's K).
template <int U, class T>
KOKKOS_INLINE_FUNCTION void zero_units(T* out) {
  MINIAPP_UNROLL
  for (int v = 0; v < U; ++v)
    out[v] = T(0);
}

// U elements from `in` to dst: one 16-byte store (Vec) or one element.
template <bool Vec, int U, class T>
KOKKOS_INLINE_FUNCTION void store_unit(T* dst, const T* in) {
  if constexpr (Vec) {
    Fragment<T> f;
    MINIAPP_UNROLL
    for (int v = 0; v < U; ++v)
      f.v[v] = in[v];
    *reinterpret_cast<Fragment<T>*>(dst) = f;
  } else {
    dst[0] = in[0];
  }
}

// Whether A's rows and B's columns are whole tiles, K whole k-tiles and rows contiguous: the
// kernel's `Full` form with 16-byte loads, whose loads are never tested. A and B may be larger
// than C needs (padded operands, matmul_padded.hpp: zeros past M, N and K); stores are masked at
// C's edges.
template <int BM, int BN, int BK, class VA, class VB>
bool tiles_are_whole(const VA& A, const VB& B) {
  return whole_tiles(A.extent(0), B.extent(1), A.extent(1), BM, BN, BK) && A.stride(1) == 1 &&
         B.stride(1) == 1;
}

// Whether the `Full` form without 16-byte loads runs: A at least BM rows, B at least BN columns,
// rows contiguous (or nothing to compute). A tile past A's last row or B's last column is moved
// back inside them and K's remainder past whole k-tiles is the first k-tile, whose loads alone are
// tested (matmul_tiled_rb_pipelined).
template <int BM, int BN, class VA, class VB>
bool full_kernel_fits(const VA& A, const VB& B) {
  const std::size_t m = A.extent(0), n = B.extent(1);
  return (m >= std::size_t(BM) || m == 0) && (n >= std::size_t(BN) || n == 0) && A.stride(1) == 1 &&
         B.stride(1) == 1;
}

template <class T, class VA, class VB>
bool vector_loads_fit(const VA& A, const VB& B) {
  return rows_of_fragments<T>(A) && rows_of_fragments<T>(B);
}

} // namespace miniapp::kernels
