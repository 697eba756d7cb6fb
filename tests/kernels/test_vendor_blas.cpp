// The host vendor GEMM is a ceiling: it must run on the CPUs the process has, not on the one core
// the caller is bound to (OMP_PROC_BIND binds the Kokkos master thread, and OpenBLAS' pthread
// workers inherit that binding: the "vendor" ceiling was one core's, issue 12, run 11).
#include "kernels/vendor_blas.hpp"

#include <gtest/gtest.h>

#include <pthread.h>
#include <sched.h>

#include <vector>

extern "C" {
void openblas_set_num_threads(int);
int openblas_get_num_threads();
int openblas_setaffinity(int thread_idx, size_t cpusetsize, cpu_set_t* cpu_set);
int openblas_getaffinity(int thread_idx, size_t cpusetsize, cpu_set_t* cpu_set);
}

namespace {

TEST(VendorBlas, OpenBlasWorkersAreNotConfinedToTheCallersCore) {
  cpu_set_t saved;
  ASSERT_EQ(pthread_getaffinity_np(pthread_self(), sizeof(saved), &saved), 0);
  if (CPU_COUNT(&saved) < 2)
    GTEST_SKIP() << "one CPU: nothing to spread over";
  std::vector<float> a = {1, 2, 3, 4}, b = {5, 6, 7, 8}, c(4, 0.0f);
  miniapp::kernels::host_gemm(a.data(), b.data(), c.data(), 2, 2, 2, 2);

  // Bind the caller to one CPU and put the workers there too, as they are when OpenBLAS started
  // them from a bound thread.
  int first = 0;
  while (!CPU_ISSET(first, &saved))
    ++first;
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(first, &one);
  ASSERT_EQ(pthread_setaffinity_np(pthread_self(), sizeof(one), &one), 0);
  openblas_set_num_threads(2);
  const int workers = openblas_get_num_threads() - 1; // the last index is the caller
  for (int i = 0; i < workers; ++i)
    openblas_setaffinity(i, sizeof(one), &one);

  miniapp::kernels::host_gemm(a.data(), b.data(), c.data(), 2, 2, 2, 2);
  std::vector<int> counts;
  for (int i = 0; i < workers; ++i) {
    cpu_set_t w;
    CPU_ZERO(&w);
    openblas_getaffinity(i, sizeof(w), &w);
    counts.push_back(CPU_COUNT(&w));
  }
  cpu_set_t caller;
  pthread_getaffinity_np(pthread_self(), sizeof(caller), &caller);
  pthread_setaffinity_np(pthread_self(), sizeof(saved), &saved);

  EXPECT_TRUE(CPU_EQUAL(&caller, &one)) << "the caller's binding is left alone";
  for (int n : counts)
    EXPECT_GT(n, 1) << "a worker is still confined to the caller's core";
  EXPECT_EQ(c, (std::vector<float>{19, 22, 43, 50}));
}

} // namespace
