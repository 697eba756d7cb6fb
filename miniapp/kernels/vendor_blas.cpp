#include <Kokkos_Core.hpp>

#include "kernels/vendor_blas.hpp"

#include <hwloc.h>
#include <hwloc/glibc-sched.h>
#include <sched.h>

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
int openblas_get_num_threads();
int openblas_setaffinity(int thread_idx, size_t cpusetsize, cpu_set_t* cpu_set);
char* openblas_get_config();
}

namespace miniapp::kernels {

namespace {
int as_blas_int(std::int64_t v) {
  if (v > 2147483647)
    throw std::runtime_error("matrix dimension exceeds the BLAS 32-bit index");
  return int(v);
}
// The CPUs this process is bound to: the union of its threads' bindings (hwloc's "process"
// binding), so all of them under OMP_PROC_BIND, only this rank's under mpirun's binding. Empty
// (CPU_COUNT 0) when hwloc cannot tell.
cpu_set_t process_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  hwloc_topology_t topo = nullptr;
  if (hwloc_topology_init(&topo) != 0)
    return set;
  hwloc_bitmap_t bound = hwloc_bitmap_alloc();
  if (hwloc_topology_load(topo) == 0 && bound &&
      hwloc_get_cpubind(topo, bound, HWLOC_CPUBIND_PROCESS) == 0)
    hwloc_cpuset_to_glibc_sched_affinity(topo, bound, &set, sizeof(set));
  hwloc_bitmap_free(bound);
  hwloc_topology_destroy(topo);
  return set;
}

// OpenBLAS (Debian's pthread build) starts its worker threads from the calling thread, and they
// inherit its affinity: under OMP_PROC_BIND that is the one core Kokkos bound the master thread
// to, so every worker shares it and the "vendor" ceiling was one core's (H100 host, 16 cores:
// 108-152 GFLOP/s SGEMM; 2-core dev machine: 92 bound against 194 GFLOP/s unbound). The workers
// are spread over the process's CPUs instead; the last index is the caller itself (OpenBLAS'
// blas_server.c), whose binding stays Kokkos'.
void set_threads(int threads) {
  openblas_set_num_threads(threads);
  static cpu_set_t cpus = process_cpus();
  if (CPU_COUNT(&cpus) == 0)
    return;
  const int workers = openblas_get_num_threads() - 1;
  for (int i = 0; i < workers; ++i)
    openblas_setaffinity(i, sizeof(cpus), &cpus);
}
} // namespace

void host_gemm(const float* A, const float* B, float* C, std::int64_t m, std::int64_t n,
               std::int64_t k, int threads) {
  set_threads(threads);
  const int M = as_blas_int(m), N = as_blas_int(n), K = as_blas_int(k);
  const float one = 1, zero = 0;
  const int lda = N > 0 ? N : 1, ldb = K > 0 ? K : 1;
  sgemm_("N", "N", &N, &M, &K, &one, B, &lda, A, &ldb, &zero, C, &lda);
}

void host_gemm(const double* A, const double* B, double* C, std::int64_t m, std::int64_t n,
               std::int64_t k, int threads) {
  set_threads(threads);
  const int M = as_blas_int(m), N = as_blas_int(n), K = as_blas_int(k);
  const double one = 1, zero = 0;
  const int lda = N > 0 ? N : 1, ldb = K > 0 ? K : 1;
  dgemm_("N", "N", &N, &M, &K, &one, B, &lda, A, &ldb, &zero, C, &lda);
}

std::string host_blas_name() {
  // OpenBLAS's configuration string starts with its own name and version ("OpenBLAS 0.3.21
  // NO_LAPACKE DYNAMIC_ARCH NO_AFFINITY Prescott MAX_THREADS=64") from 0.3.x; older ones do not.
  const std::string config = openblas_get_config();
  return config.rfind("OpenBLAS", 0) == 0 ? config : "OpenBLAS " + config;
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
