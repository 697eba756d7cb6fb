// Why does a kernel timed right after a host-to-device copy run slower than the same kernel timed
// back to back? Times R = 2A - B (4096^2 floats) in four situations and reads the SM and memory
// clocks (NVML, loaded at run time) just before each timed launch.
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <thread>
#include <vector>

__global__ void axpby(const float* a, const float* b, float* r, long n) {
  long i = blockIdx.x * long(blockDim.x) + threadIdx.x;
  if (i < n) r[i] = 2.0f * a[i] - b[i];
}
typedef int (*init_t)();
typedef int (*handle_t)(unsigned, void**);
typedef int (*clock_t_)(void*, int, unsigned*);
static handle_t get_handle; static clock_t_ get_clock; static void* dev;
static void clocks(unsigned& sm, unsigned& mem) {
  sm = mem = 0;
  if (get_clock) { get_clock(dev, 1, &sm); get_clock(dev, 2, &mem); }
}
int main() {
  if (void* h = dlopen("libnvidia-ml.so.1", RTLD_NOW)) {
    ((init_t)dlsym(h, "nvmlInit_v2"))();
    get_handle = (handle_t)dlsym(h, "nvmlDeviceGetHandleByIndex_v2");
    get_clock = (clock_t_)dlsym(h, "nvmlDeviceGetClockInfo");
    get_handle(0, &dev);
  }
  const long n = 4096L * 4096;
  std::vector<float> ha(n, 1.f), hb(n, 2.f);
  float *a, *b, *r;
  cudaMalloc(&a, n * 4); cudaMalloc(&b, n * 4); cudaMalloc(&r, n * 4);
  auto upload = [&] { cudaMemcpy(a, ha.data(), n * 4, cudaMemcpyHostToDevice);
                      cudaMemcpy(b, hb.data(), n * 4, cudaMemcpyHostToDevice); };
  auto launch = [&] { axpby<<<(n + 255) / 256, 256>>>(a, b, r, n); };
  auto timed = [&] {
    cudaDeviceSynchronize();
    auto t0 = std::chrono::steady_clock::now();
    launch();
    cudaDeviceSynchronize();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  };
  upload(); launch(); cudaDeviceSynchronize();
  const char* names[] = {"after upload", "back to back", "after 50 ms idle",
                         "after upload + 1 untimed launch"};
  for (int s = 0; s < 4; ++s) {
    std::vector<double> t; unsigned sm_sum = 0, mem_sum = 0;
    for (int rep = 0; rep < 15; ++rep) {
      if (s == 0 || s == 3) { upload(); cudaDeviceSynchronize(); }
      if (s == 2) std::this_thread::sleep_for(std::chrono::milliseconds(50));
      if (s == 3) launch();
      cudaDeviceSynchronize();
      unsigned sm, mem; clocks(sm, mem); sm_sum += sm; mem_sum += mem;
      t.push_back(timed());
    }
    std::sort(t.begin(), t.end());
    printf("%-32s median %7.1f us = %6.0f GB/s (min %7.1f us); SM clock before launch %u MHz, "
           "memory %u MHz (means)\n", names[s], t[7] * 1e6, 12.0 * n / t[7] * 1e-9, t[0] * 1e6,
           sm_sum / 15, mem_sum / 15);
  }
  return 0;
}
