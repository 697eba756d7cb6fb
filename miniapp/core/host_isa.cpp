#include "core/host_isa.hpp"

#include <cctype>
#include <sstream>

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

// OpenBLAS's x86-64 core names (driver/others/dynamic.c), each with the highest x86-64 level its
// kernels use, and the name to ask for at each level with OPENBLAS_CORETYPE.
struct BlasCore {
  const char* name;
  int level;
};
constexpr BlasCore kBlasCores[] = {
    {"katmai", 1},        {"coppermine", 1},  {"northwood", 1},     {"prescott", 1},
    {"banias", 1},        {"atom", 1},        {"core2", 1},         {"penryn", 1},
    {"dunnington", 1},    {"athlon", 1},      {"opteron", 1},       {"opteron_sse3", 1},
    {"opteron(sse3)", 1}, {"barcelona", 1},   {"nano", 1},          {"bobcat", 1},
    {"nehalem", 2},       {"sandybridge", 2}, {"bulldozer", 2},     {"piledriver", 2},
    {"steamroller", 2},   {"haswell", 3},     {"excavator", 3},     {"zen", 3},
    {"skylakex", 4},      {"cooperlake", 4},  {"sapphirerapids", 4}};
const char* blas_core_for_level(int level) {
  return level >= 4 ? "SkylakeX" : level == 3 ? "Haswell" : "Nehalem";
}

std::string lower(std::string s) {
  for (char& c : s)
    c = char(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

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

// The word of an OpenBLAS configuration string that names an x86-64 core, or nullptr.
const BlasCore* openblas_core(const std::string& host_blas, std::string* word_out) {
  std::istringstream words(host_blas);
  for (std::string word; words >> word;)
    for (const BlasCore& core : kBlasCores)
      if (lower(word) == core.name) {
        *word_out = word;
        return &core;
      }
  return nullptr;
}
} // namespace

int openblas_core_level(const std::string& host_blas) {
  std::string word;
  const BlasCore* core = openblas_core(host_blas, &word);
  return core ? core->level : 0;
}

std::string blas_under_use(const std::string& host_blas, const std::string& offered) {
  std::string word;
  const BlasCore* core = openblas_core(host_blas, &word);
  const int cpu = x86_64_level(offered);
  if (!core || cpu <= core->level)
    return "";
  return "host BLAS: OpenBLAS runs its " + word + " kernels, made for less than this CPU's " +
         offered +
         ": its vendor rows, and the GEMM ceiling taken from them, understate the CPU (OpenBLAS "
         "picks its kernels by the CPU model, which it may not know on a virtual machine, or by "
         "OPENBLAS_CORETYPE: set OPENBLAS_CORETYPE=" +
         blas_core_for_level(cpu) + " in the run's environment)";
}

HostIsa host_isa() {
  HostIsa isa;
  isa.built_level = built_level();
  isa.offered_level = offered_level();
  isa.built_for = isa.built_level ? x86_64_level_name(isa.built_level) : architecture_name();
  isa.offered = isa.offered_level ? x86_64_level_name(isa.offered_level) : architecture_name();
  return isa;
}

} // namespace miniapp
