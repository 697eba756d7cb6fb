// libFuzzer target: ceilings.json, the ceiling cache (run/ceiling_cache.hpp), read back as
// `miniapp run` reads it with reuse_ceilings: the bytes written as the file, then every figure
// looked up and one stored, which rewrites the file from what the reader kept. The store must
// succeed (the cache directory is writable), the file it leaves must be small (what the reader
// keeps is bounded), and the figure stored must read back. A crash, a leak, a hang, unbounded
// memory or a file that grows past the bound is a finding (docs/testing.md).
#include "fuzz_input.hpp"
#include "run/ceiling_cache.hpp"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <string>

namespace {

// The machine keys and figure names of the seeds (tests/fuzz/seeds/ceiling_cache), so mutated
// inputs keep reaching the lookups.
constexpr const char* kMachine = "host|cpu|serial|concurrency=1|build=0.1.0+abc gcc";
constexpr const char* kFigures[] = {"L1 copy bandwidth [GB/s]", "memory copy bandwidth [GB/s]",
                                    "vendor GEMM float32 64x64x64 [GFLOP/s]"};

std::string scratch_file() {
  static const std::string path = miniapp::fuzz::scratch_dir("ceilings") + "/ceilings.json";
  return path;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = scratch_file();
  miniapp::fuzz::write_file(path, std::string(reinterpret_cast<const char*>(data), size));
  miniapp::CeilingCache cache(path, kMachine);
  for (const char* what : kFigures)
    if (const auto v = cache.get(what); v && !miniapp::plausible_ceiling(*v))
      std::abort(); // a figure no measurement gives was handed to the run
  if (!cache.put(kFigures[0], 42.5) || cache.get(kFigures[0]) != 42.5)
    std::abort();
  if (std::filesystem::file_size(path) > miniapp::kCeilingCacheBytes)
    std::abort(); // a rewrite grew the file past what the reader takes back
  return 0;
}
