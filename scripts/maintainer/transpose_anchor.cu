// The raw CUDA transpose anchor of `scripts/gpu-run.sh targets`: the classic padded-tile transpose
// (a 32 x 33 shared tile, 32 x 8 threads, each thread 4 elements; no Kokkos) and a copy kernel of
// the same bytes, for float32 and float64 at N x N (default 4096 and 8192), each timed three ways:
//   fenced   a host clock around one launch and the stream's synchronisation, the median of 20
//            (how `miniapp run` and miniapp-bench timed a sample before samples were chained);
//   events   CUDA events around one launch, the median of 20 (the device's own time of a launch);
//   chained  20 launches between two synchronisations, per launch (the launch's start and the
//            synchronisation paid once: how the tool times a short case's sample now,
//            core/timing.hpp, and its copy ceiling).
// GB/s count the bytes read and written (2 N^2 sizeof(T)), as the tool does. It says what any
// implementation of this algorithm reaches under each timing on the same GPU, so a kernel's share
// of the tool's copy ceiling can be read against it. Independent of Kokkos and of the project.
// --offset BYTES (a multiple of 16) starts both matrices that many bytes past cudaMalloc's
// alignment, as a Kokkos 3.x View's data starts 128 bytes past its allocation.
// Built on the GPU machine: nvcc -O3 -arch=native -o transpose_anchor scripts/maintainer/transpose_anchor.cu
// Run: transpose_anchor [--offset BYTES] [N ...]   (default N: 4096 8192)
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

constexpr int kTile = 32, kRows = 8, kReps = 20;

template <class T>
__global__ void transpose_tile(const T* __restrict__ a, T* __restrict__ b, int n) {
  __shared__ T tile[kTile][kTile + 1];
  const int x = blockIdx.x * kTile + threadIdx.x;
  const int y = blockIdx.y * kTile + threadIdx.y;
  for (int j = 0; j < kTile; j += kRows)
    tile[threadIdx.y + j][threadIdx.x] = a[size_t(y + j) * n + x];
  __syncthreads();
  const int tx = blockIdx.y * kTile + threadIdx.x; // B's column
  const int ty = blockIdx.x * kTile + threadIdx.y; // B's row
  for (int j = 0; j < kTile; j += kRows)
    b[size_t(ty + j) * n + tx] = tile[threadIdx.x][threadIdx.y + j];
}

// 16 bytes per thread: the fastest plain copy kernel shape on an H100.
__global__ void copy16(const int4* __restrict__ a, int4* __restrict__ b, size_t n16) {
  const size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n16)
    b[i] = a[i];
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

struct Times {
  double fenced, events, chained; // seconds per launch
};

template <class Launch>
Times time_three_ways(const Launch& launch) {
  using clock = std::chrono::steady_clock;
  for (int w = 0; w < 3; ++w)
    launch();
  cudaDeviceSynchronize();
  std::vector<double> fenced, events;
  for (int r = 0; r < kReps; ++r) {
    cudaDeviceSynchronize();
    const auto t0 = clock::now();
    launch();
    cudaDeviceSynchronize();
    fenced.push_back(std::chrono::duration<double>(clock::now() - t0).count());
  }
  cudaEvent_t e0, e1;
  cudaEventCreate(&e0);
  cudaEventCreate(&e1);
  for (int r = 0; r < kReps; ++r) {
    cudaEventRecord(e0);
    launch();
    cudaEventRecord(e1);
    cudaEventSynchronize(e1);
    float ms = 0;
    cudaEventElapsedTime(&ms, e0, e1);
    events.push_back(1e-3 * ms);
  }
  cudaEventDestroy(e0);
  cudaEventDestroy(e1);
  std::vector<double> chained;
  for (int s = 0; s < 5; ++s) {
    cudaDeviceSynchronize();
    const auto t0 = clock::now();
    for (int r = 0; r < kReps; ++r)
      launch();
    cudaDeviceSynchronize();
    chained.push_back(std::chrono::duration<double>(clock::now() - t0).count() / kReps);
  }
  return {median(fenced), median(events), median(chained)};
}

template <class T>
int measure(int n, const char* type, size_t offset) {
  const size_t bytes = size_t(n) * size_t(n) * sizeof(T);
  char *base_a = nullptr, *base_b = nullptr;
  if (n % kTile != 0 || cudaMalloc(&base_a, bytes + offset) != cudaSuccess ||
      cudaMalloc(&base_b, bytes + offset) != cudaSuccess) {
    std::fprintf(stderr, "transpose_anchor: N must be a multiple of %d and %zu bytes must fit\n",
                 kTile, 2 * (bytes + offset));
    return 3;
  }
  T* a = reinterpret_cast<T*>(base_a + offset);
  T* b = reinterpret_cast<T*>(base_b + offset);
  std::vector<T> h(size_t(n) * n);
  for (size_t i = 0; i < h.size(); ++i)
    h[i] = T(i % 1000003);
  cudaMemcpy(a, h.data(), bytes, cudaMemcpyHostToDevice);
  const dim3 grid(n / kTile, n / kTile), block(kTile, kRows);
  const Times tr = time_three_ways([&] { transpose_tile<T><<<grid, block>>>(a, b, n); });
  std::vector<T> out(h.size());
  cudaMemcpy(out.data(), b, bytes, cudaMemcpyDeviceToHost);
  for (size_t i = 0; i < size_t(n); ++i)
    for (size_t j = 0; j < size_t(n); ++j)
      if (out[i * n + j] != h[j * n + i]) {
        std::fprintf(stderr, "transpose_anchor: B(%zu, %zu) is wrong\n", i, j);
        return 4;
      }
  const size_t n16 = bytes / 16;
  const Times cp = time_three_ways([&] {
    copy16<<<unsigned((n16 + 255) / 256), 256>>>(reinterpret_cast<const int4*>(a),
                                                 reinterpret_cast<int4*>(b), n16);
  });
  const double moved = 2.0 * double(bytes);
  std::printf("%s %dx%d  A^T:  fenced %.1f us %.0f GB/s, events %.1f us %.0f GB/s, chained "
              "%.1f us %.0f GB/s\n",
              type, n, n, 1e6 * tr.fenced, moved / tr.fenced * 1e-9, 1e6 * tr.events,
              moved / tr.events * 1e-9, 1e6 * tr.chained, moved / tr.chained * 1e-9);
  std::printf("%s %dx%d  copy: fenced %.1f us %.0f GB/s, events %.1f us %.0f GB/s, chained "
              "%.1f us %.0f GB/s\n",
              type, n, n, 1e6 * cp.fenced, moved / cp.fenced * 1e-9, 1e6 * cp.events,
              moved / cp.events * 1e-9, 1e6 * cp.chained, moved / cp.chained * 1e-9);
  std::printf("%s %dx%d  A^T chained as %% of copy chained (the tool's ratio): %.1f%%; "
              "events / events: %.1f%%; fenced as %% of copy chained (one launch a sample): "
              "%.1f%%\n",
              type, n, n, 100 * cp.chained / tr.chained, 100 * cp.events / tr.events,
              100 * cp.chained / tr.fenced);
  cudaFree(base_a);
  cudaFree(base_b);
  return cudaGetLastError() == cudaSuccess ? 0 : 3;
}

} // namespace

int main(int argc, char** argv) {
  std::vector<int> sizes;
  size_t offset = 0;
  for (int i = 1; i < argc; ++i) {
    if (std::string(argv[i]) == "--offset" && i + 1 < argc)
      offset = size_t(std::atol(argv[++i]));
    else
      sizes.push_back(std::atoi(argv[i]));
  }
  if (offset % 16 != 0) {
    std::fprintf(stderr, "transpose_anchor: --offset must be a multiple of 16 bytes\n");
    return 2;
  }
  if (sizes.empty())
    sizes = {4096, 8192};
  if (offset > 0)
    std::printf("both matrices start %zu bytes past cudaMalloc's alignment\n", offset);
  int rc = 0;
  for (const int n : sizes) {
    rc = std::max(rc, measure<float>(n, "float32", offset));
    rc = std::max(rc, measure<double>(n, "float64", offset));
  }
  return rc;
}
