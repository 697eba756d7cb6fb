#pragma once
// The vendor GEMM, as the reference a user compares against: OpenBLAS on host backends, cuBLAS on
// CUDA. Row-major C = A * B is computed as column-major C^T = B^T * A^T.
#include <cstdint>
#include <string>

namespace miniapp::kernels {

// Host: OpenBLAS with the given thread count (the same as the Kokkos host space uses).
void host_gemm(const float* A, const float* B, float* C, std::int64_t m, std::int64_t n,
               std::int64_t k, int threads);
void host_gemm(const double* A, const double* B, double* C, std::int64_t m, std::int64_t n,
               std::int64_t k, int threads);
std::string host_blas_name();

#ifdef KOKKOS_ENABLE_CUDA
// Device pointers; stream 0, the caller fences. Plain FP32/FP64 (no TF32 tensor-core mode).
void cuda_gemm(const float* A, const float* B, float* C, std::int64_t m, std::int64_t n,
               std::int64_t k);
void cuda_gemm(const double* A, const double* B, double* C, std::int64_t m, std::int64_t n,
               std::int64_t k);
#endif

} // namespace miniapp::kernels
