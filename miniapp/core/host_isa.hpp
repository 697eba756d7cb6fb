#pragma once
// The host instruction set: the level this binary was compiled for (-march, MINIAPP_HOST_ARCH)
// and the level this CPU offers. A binary built for less than its CPU offers runs its host
// kernels without the wider vectors (a generic x86-64 build uses 16-byte SSE2 where the CPU has
// 32-byte AVX2 or 64-byte AVX-512): its host figures understate the CPU, and a CPU-vs-GPU
// comparison made with it is unfair. results.json records both, `run` warns, `compare` flags it.
#include <string>

namespace miniapp {

struct HostIsa {
  std::string built_for; // x86-64, x86-64-v2, x86-64-v3, x86-64-v4; or the architecture's name
  std::string offered;   // the same scale, for this CPU
  int built_level = 0;   // 1-4 on x86-64 (0: not x86-64, levels not compared)
  int offered_level = 0;
  bool under_uses() const { return built_level > 0 && offered_level > built_level; }
};

HostIsa host_isa();

// The x86-64 micro-architecture level name for 1-4 ("" otherwise), and back (0: not a level).
std::string x86_64_level_name(int level);
int x86_64_level(const std::string& name);

// One sentence when a binary built for `built_for` under-uses a CPU offering `offered` (both
// level names, as results.json records them), else "". `run` prints it; `compare` and `report`
// flag runs with it.
std::string isa_under_use(const std::string& built_for, const std::string& offered);

// The x86-64 level of the kernels an OpenBLAS configuration string names (openblas_get_config(),
// as results.json's host_blas records it: "OpenBLAS 0.3.21 ... DYNAMIC_ARCH ... Prescott ..."):
// the highest level whose instructions that core's kernels use (Prescott SSE3: 1; Nehalem,
// Sandybridge: 2; Haswell, Zen: 3; SkylakeX: 4), 0 where the string names no x86 core it knows.
int openblas_core_level(const std::string& host_blas);

// One sentence when the host BLAS (its configuration string) runs kernels of a lower level than
// the CPU offers (a level name), else "". OpenBLAS's DYNAMIC_ARCH picks its kernels by the CPU
// model, and on a virtual machine whose model it does not know it falls back to Prescott: on an
// AVX-512 guest SGEMM at 1024 ran 43 GFLOP/s with them and 211-216 with OPENBLAS_CORETYPE=SkylakeX,
// so a host vendor row, and the GEMM ceiling taken from it, understate the CPU fivefold.
std::string blas_under_use(const std::string& host_blas, const std::string& offered);

} // namespace miniapp
