#include "core/host_isa.hpp"

namespace miniapp {

std::string x86_64_level_name(int level) {
  switch (level) {
  case 1:
    return "x86-64";
  case 2:
    return "x86-64-v2";
  case 3:
    return "x86-64-v3";
  case 4:
    return "x86-64-v4";
  default:
    return "";
  }
}

int x86_64_level(const std::string& name) {
  for (int level = 1; level <= 4; ++level)
    if (name == x86_64_level_name(level))
      return level;
  return 0;
}

std::string isa_under_use(const std::string& built_for, const std::string& offered) {
  const int built = x86_64_level(built_for), cpu = x86_64_level(offered);
  if (built == 0 || cpu <= built)
    return "";
  return "host code built for " + built_for + " on a CPU offering " + offered +
         ": host kernels run without the CPU's wider vectors, so host figures understate it "
         "(rebuild with MINIAPP_HOST_ARCH=native, the openmp preset's default)";
}

namespace {

// The levels of the x86-64 psABI: each adds the features listed to the one below it.
// v2: SSE3, SSSE3, SSE4.1, SSE4.2, POPCNT; v3: AVX, AVX2, BMI1, BMI2, F16C, FMA, LZCNT, MOVBE;
// v4: AVX512F, AVX512BW, AVX512CD, AVX512DQ, AVX512VL. This file is compiled with the project's
// -march, so the predefined macros are what every layer's code may use.
int built_level() {
#if defined(__x86_64__)
#if defined(__AVX512F__) && defined(__AVX512BW__) && defined(__AVX512CD__) &&                      \
    defined(__AVX512DQ__) && defined(__AVX512VL__) && defined(__AVX2__) && defined(__FMA__)
  return 4;
#elif defined(__AVX2__) && defined(__FMA__) && defined(__BMI2__) && defined(__F16C__)
  return 3;
#elif defined(__SSE4_2__) && defined(__POPCNT__) && defined(__SSSE3__)
  return 2;
#else
  return 1;
#endif
#else
  return 0;
#endif
}

int offered_level() {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  __builtin_cpu_init();
  const bool v2 = __builtin_cpu_supports("sse4.2") && __builtin_cpu_supports("popcnt") &&
                  __builtin_cpu_supports("ssse3");
  const bool v3 = v2 && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
                  __builtin_cpu_supports("bmi2");
  const bool v4 = v3 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                  __builtin_cpu_supports("avx512cd") && __builtin_cpu_supports("avx512dq") &&
                  __builtin_cpu_supports("avx512vl");
  return v4 ? 4 : v3 ? 3 : v2 ? 2 : 1;
#else
  return 0;
#endif
}

std::string architecture_name() {
#if defined(__aarch64__)
  return "aarch64";
#elif defined(__powerpc64__)
  return "ppc64";
#else
  return "unknown";
#endif
}

} // namespace

HostIsa host_isa() {
  HostIsa isa;
  isa.built_level = built_level();
  isa.offered_level = offered_level();
  isa.built_for = isa.built_level ? x86_64_level_name(isa.built_level) : architecture_name();
  isa.offered = isa.offered_level ? x86_64_level_name(isa.offered_level) : architecture_name();
  return isa;
}

} // namespace miniapp
