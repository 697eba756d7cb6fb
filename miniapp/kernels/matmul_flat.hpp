#pragma once
// matmul flat: one work item per output element (C++ AMP parallel_for_each / OpenCL
// matmul_naive), labelled miniapp::matmul::flat.
#include "kernels/launch_limits.hpp"

#include <Kokkos_Core.hpp>

namespace miniapp::kernels {

template <class Exec, class VA, class VB, class VC>
void matmul_flat(const Exec& exec, const VA& A, const VB& B, const VC& C) {
  using T = typename VC::non_const_value_type;
  const int M = C.extent(0), N = C.extent(1), K = A.extent(1);
  // Consecutive work items take consecutive columns: B and C accesses coalesce on GPUs,
  // A(i, k) is the same for a whole row.
  Kokkos::parallel_for(
      "miniapp::matmul::flat",
      Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>(exec, 0, std::int64_t(M) * N),
      KOKKOS_LAMBDA(const std::int64_t idx) {
        const int i = int(idx / N), j = int(idx % N);
        T acc = 0;
        for (int k = 0; k < K; ++k)
          acc += A(i, k) * B(k, j);
        C(i, j) = acc;
      });
}

} // namespace miniapp::kernels
