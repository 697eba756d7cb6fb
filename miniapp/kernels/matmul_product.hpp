#pragma once
// The product C = A * B of a matmul case's variant, said once: the single-rank case
// (matmul_case.cpp) and SUMMA's panel products (parallel/summa.hpp) both dispatch here, so the
// variant names are read in kernels/ only.
#include "kernels/axpby.hpp"
#include "kernels/kernel_case.hpp"
#include "kernels/matmul.hpp"
#include "kernels/matrix.hpp"
#include "kernels/vendor_blas.hpp"
#include "core/case.hpp"
#include "core/compat.hpp"

#include <cstdint>
#include <string>
#include <type_traits>

namespace miniapp::kernels {

// Throws UnsupportedCase where c's variant has no product for T on Exec (the vendor GEMM has no
// int32 product and exists on host backends and CUDA only).
template <class Exec, class T>
void check_matmul_product(const Case& c) {
  if (c.variant != "vendor")
    return;
  if constexpr (!std::is_floating_point_v<T>) {
    throw UnsupportedCase("vendor GEMM has no int32 product (BLAS is floating point only)");
  } else if constexpr (!DualMatrix<T, Exec>::zero_copy) {
#ifdef KOKKOS_ENABLE_CUDA
    if (!std::is_same_v<Exec, Kokkos::Cuda>)
#endif
      throw UnsupportedCase(std::string("no vendor BLAS for the ") + Exec::name() +
                            " backend in this build (rocBLAS is not packaged by Debian)");
  }
}

// C = A * B by c's variant with tile width `tile` (resolved: never 0 for the tiled variants).
// Returns what tiled_rb chose at launch (split-K, padding); nothing for the other variants.
template <class Exec, class T, class VA, class VB, class VC>
LaunchChoice matmul_product(const Exec& exec, const Case& c, int tile, const VA& A, const VB& B,
                            const VC& C) {
  if (c.variant == "flat") {
    matmul_flat(exec, A, B, C);
  } else if (c.variant == "tiled") {
    matmul_tiled_any(exec, A, B, C, tile, c.team_size);
  } else if (c.variant == "tiled_rb") {
    return matmul_tiled_rb(exec, A, B, C, tile, c.team_size, c.shape);
  } else if constexpr (std::is_floating_point_v<T>) { // vendor (check_matmul_product passed)
    const std::int64_t m = C.extent(0), n = C.extent(1), k = A.extent(1);
    if constexpr (DualMatrix<T, Exec>::zero_copy) {
      host_gemm(A.data(), B.data(), C.data(), m, n, k, compat::concurrency(exec));
    }
#ifdef KOKKOS_ENABLE_CUDA
    else if constexpr (std::is_same_v<Exec, Kokkos::Cuda>) {
      cuda_gemm(A.data(), B.data(), C.data(), m, n, k);
    }
#endif
  }
  return {};
}

// C += P: SUMMA adds each later panel's product to C (C = 1*C + 1*P, the flat axpby kernel).
template <class Exec, class VC, class VP>
void matmul_accumulate(const Exec& exec, const VC& C, const VP& P) {
  using T = typename VC::non_const_value_type;
  axpby_flat(exec, T(1), C, T(1), P, C);
}

} // namespace miniapp::kernels
