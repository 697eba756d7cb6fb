#include <Kokkos_Core.hpp>

#include "kernels/vendor_blas.hpp"

#include <stdexcept>
#include <string>

#ifdef KOKKOS_ENABLE_CUDA
#include <cublas_v2.h>
#endif

extern "C" {
void sgemm_(const char*, const char*, const int*, const int*, const int*, const float*,
            const float*, const int*, const float*, const int*, const float*, float*, const int*);
void dgemm_(const char*, const char*, const int*, const int*, const int*, const double*,
            const double*, const int*, const double*, const int*, const double*, double*,
            const int*);
void openblas_set_num_threads(int);
char* openblas_get_config();
}

namespace miniapp::kernels {

namespace {
int as_blas_int(std::int64_t v) {
  if (v > 2147483647)
    throw std::runtime_error("matrix dimension exceeds the BLAS 32-bit index");
  return int(v);
}
} // namespace

void host_gemm(const float* A, const float* B, float* C, std::int64_t m, std::int64_t n,
               std::int64_t k, int threads) {
  openblas_set_num_threads(threads);
  const int M = as_blas_int(m), N = as_blas_int(n), K = as_blas_int(k);
  const float one = 1, zero = 0;
  const int lda = N > 0 ? N : 1, ldb = K > 0 ? K : 1;
  sgemm_("N", "N", &N, &M, &K, &one, B, &lda, A, &ldb, &zero, C, &lda);
}

void host_gemm(const double* A, const double* B, double* C, std::int64_t m, std::int64_t n,
               std::int64_t k, int threads) {
  openblas_set_num_threads(threads);
  const int M = as_blas_int(m), N = as_blas_int(n), K = as_blas_int(k);
  const double one = 1, zero = 0;
  const int lda = N > 0 ? N : 1, ldb = K > 0 ? K : 1;
  dgemm_("N", "N", &N, &M, &K, &one, B, &lda, A, &ldb, &zero, C, &lda);
}

std::string host_blas_name() {
  return std::string("OpenBLAS ") + openblas_get_config();
}

#ifdef KOKKOS_ENABLE_CUDA
namespace {
cublasHandle_t handle() {
  static cublasHandle_t h = [] {
    cublasHandle_t created{};
    if (cublasCreate(&created) != CUBLAS_STATUS_SUCCESS)
      throw std::runtime_error("cublasCreate failed (resource: cuBLAS handle)");
    cublasSetMathMode(created, CUBLAS_DEFAULT_MATH); // no TF32: compare FP32 with FP32
    return created;
  }();
  return h;
}
void check(cublasStatus_t s, const char* what) {
  if (s != CUBLAS_STATUS_SUCCESS)
    throw std::runtime_error(std::string(what) + " failed with cuBLAS status " +
                             std::to_string(int(s)));
}
} // namespace

void cuda_gemm(const float* A, const float* B, float* C, std::int64_t m, std::int64_t n,
               std::int64_t k) {
  const float one = 1, zero = 0;
  const int M = as_blas_int(m), N = as_blas_int(n), K = as_blas_int(k);
  check(cublasSgemm(handle(), CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &one, B, N > 0 ? N : 1, A,
                    K > 0 ? K : 1, &zero, C, N > 0 ? N : 1),
        "cublasSgemm");
}
void cuda_gemm(const double* A, const double* B, double* C, std::int64_t m, std::int64_t n,
               std::int64_t k) {
  const double one = 1, zero = 0;
  const int M = as_blas_int(m), N = as_blas_int(n), K = as_blas_int(k);
  check(cublasDgemm(handle(), CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &one, B, N > 0 ? N : 1, A,
                    K > 0 ? K : 1, &zero, C, N > 0 ? N : 1),
        "cublasDgemm");
}
#endif

} // namespace miniapp::kernels
