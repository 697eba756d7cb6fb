// Exploration probe (session 4): every compiled tiled_rb GPU shape and the classic tiled kernel,
// timed as core/timing.hpp does (one untimed launch, then launches back to back, each between two
// fences), against cuBLAS at the same shape and precision in the same process; max relative
// difference to cuBLAS' product printed beside each.
#include "kernels/matmul.hpp"

#include <Kokkos_Core.hpp>
#include <cublas_v2.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

using namespace miniapp::kernels;
using Exec = Kokkos::Cuda;

template <class F>
double median_time(F&& f, int reps) {
  Exec().fence();
  f();
  Exec().fence();
  std::vector<double> t;
  for (int r = 0; r < reps; ++r) {
    Kokkos::Timer timer;
    f();
    Exec().fence();
    t.push_back(timer.seconds());
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

template <class T>
void gemm_ref(cublasHandle_t h, int n, const T* A, const T* B, T* C) {
  const T one = 1, zero = 0; // row-major C = A B is column-major C^T = B^T A^T
  if constexpr (sizeof(T) == 4)
    cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, B, n, A, n, &zero, C, n);
  else
    cublasDgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, B, n, A, n, &zero, C, n);
}

template <class T>
void run(int n, int reps) {
  using View = Kokkos::View<T**, Kokkos::LayoutRight, Kokkos::CudaSpace>;
  View A("A", n, n), B("B", n, n), C("C", n, n), R("R", n, n);
  Kokkos::parallel_for(
      "init", Kokkos::RangePolicy<Exec>(0, std::int64_t(n) * n), KOKKOS_LAMBDA(std::int64_t i) {
        A.data()[i] = T(int(i * 7 % 13) - 6) / 8;
        B.data()[i] = T(int(i * 5 % 11) - 5) / 8;
      });
  cublasHandle_t h;
  cublasCreate(&h);
  const double flops = 2.0 * n * n * double(n);
  const double tv = median_time([&] { gemm_ref(h, n, A.data(), B.data(), R.data()); }, reps);
  auto hr = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), R);
  auto report = [&](const std::string& what, double t) {
    auto hc = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), C);
    double err = 0;
    for (std::int64_t i = 0; i < std::int64_t(n) * n; ++i)
      err = std::max(err, std::fabs(double(hc.data()[i]) - hr.data()[i]) /
                              std::max(1.0, std::fabs(double(hr.data()[i]))));
    std::printf("%-8s n=%5d %-22s %9.3f ms %7.2f TFLOP/s %6.1f%% of vendor  maxrel %.1e\n",
                sizeof(T) == 4 ? "float32" : "float64", n, what.c_str(), t * 1e3, flops / t / 1e12,
                100 * tv / t, err);
  };
  std::printf("%-8s n=%5d %-22s %9.3f ms %7.2f TFLOP/s\n", sizeof(T) == 4 ? "float32" : "float64",
              n, "cublas", tv * 1e3, flops / tv / 1e12);
  for (int tile : {128, 64}) {
    auto names = tiled_rb_shape_names(true, true, sizeof(T), tile);
    for (const auto& s : names) {
      Kokkos::deep_copy(C, T(-1));
      const double t = median_time([&] { matmul_tiled_rb(Exec(), A, B, C, tile, 0, s); }, reps);
      report("rb " + s, t);
    }
  }
  if (sizeof(T) == 4)
    for (int tw : {16, 32}) {
      Kokkos::deep_copy(C, T(-1));
      const double t = median_time([&] { matmul_tiled_any(Exec(), A, B, C, tw); }, reps);
      report("tiled " + std::to_string(tw), t);
    }
  cublasDestroy(h);
}

int main(int argc, char** argv) {
  Kokkos::ScopeGuard g(argc, argv);
  for (int n : {4096, 8192, 4097}) {
    const int reps = n == 8192 ? 8 : 30;
    run<float>(n, reps);
    run<double>(n, reps);
  }
}
