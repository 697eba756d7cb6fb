// The raw device-to-device copy anchor of `scripts/gpu-run.sh targets`: cudaMemcpy between two
// device buffers of N x N floats (default 8192), timed with CUDA events, 3 warm-up and 20 timed
// copies, the median printed in GB/s counting the bytes read and written (2 N^2 * 4), as the
// tool's copy ceiling counts them. Independent of Kokkos and of the project's own copy kernel.
// Built on the GPU machine: nvcc -O2 -o memcpy_ceiling scripts/maintainer/memcpy_ceiling.cu
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

int main(int argc, char** argv) {
  const long n = argc > 1 ? std::atol(argv[1]) : 8192;
  const size_t bytes = size_t(n) * size_t(n) * sizeof(float);
  void *a = nullptr, *b = nullptr;
  if (cudaMalloc(&a, bytes) != cudaSuccess || cudaMalloc(&b, bytes) != cudaSuccess) {
    std::fprintf(stderr, "memcpy_ceiling: cudaMalloc of %zu bytes failed\n", bytes);
    return 3;
  }
  cudaMemset(a, 1, bytes);
  cudaEvent_t t0, t1;
  cudaEventCreate(&t0);
  cudaEventCreate(&t1);
  std::vector<float> ms;
  for (int i = 0; i < 23; ++i) {
    cudaEventRecord(t0);
    cudaMemcpy(b, a, bytes, cudaMemcpyDeviceToDevice);
    cudaEventRecord(t1);
    cudaEventSynchronize(t1);
    float t = 0;
    cudaEventElapsedTime(&t, t0, t1);
    if (i >= 3)
      ms.push_back(t);
  }
  std::sort(ms.begin(), ms.end());
  const double median_s = 1e-3 * ms[ms.size() / 2];
  std::printf("memcpy D2D %ldx%ld float32: %.1f GB/s (median of %zu, %.3f ms)\n", n, n,
              2.0 * double(bytes) / median_s / 1e9, ms.size(), 1e3 * median_s);
  return cudaGetLastError() == cudaSuccess ? 0 : 3;
}
