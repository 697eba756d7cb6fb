// Issue 44: the transpose's tile, left out of the config, is measured on GPUs (32 against 64) as
// 'tile: auto' is: the plan marks it searched (tile_left_out, kernels/families.hpp), the autotuner
// times both, records the tile that ran in the row (tile, tuning) and caches it per machine; a
// damaged cache or entry is searched again. On host backends the tile left out stays 32; written
// 'tile: auto' it is searched there too, which is how these tests exercise the search.
#include "run/autotune.hpp"
#include "core/backends.hpp"
#include "kernels/families.hpp"
#include "run/driver.hpp"

#include <nlohmann/json.hpp>

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <unistd.h>

namespace miniapp {
namespace {

Case transpose_case(Precision p) {
  Case c;
  c.family = "transpose";
  c.variant = "tiled";
  c.precision = p;
  c.m = 200;
  c.n = 136;
  resolve_parameters(c);
  return c;
}

TEST(TransposeTile, LeftOutIsMeasuredOnGpusOnly) {
  Case gpu = transpose_case(Precision::float32);
  EXPECT_EQ(gpu.tile, 32); // the table's default
  tile_left_out(gpu, true);
  EXPECT_TRUE(gpu.tile_auto);
  EXPECT_EQ(gpu.tile, 0);
  EXPECT_EQ(tile_candidates(gpu, true), (std::vector<int>{32, 64}));
  Case host = transpose_case(Precision::float32);
  tile_left_out(host, false);
  EXPECT_FALSE(host.tile_auto);
  EXPECT_EQ(host.tile, 32);
  Case matmul = transpose_case(Precision::float32);
  matmul.family = "matmul";
  resolve_parameters(matmul);
  const int tile = matmul.tile;
  tile_left_out(matmul, true); // a variant whose default is not measured
  EXPECT_FALSE(matmul.tile_auto);
  EXPECT_EQ(matmul.tile, tile);
}

// Each test with an autotune cache of its own (MINIAPP_CACHE_DIR), removed after it.
class TransposeTileSearch : public ::testing::TestWithParam<std::string> {
protected:
  const std::filesystem::path dir_ =
      std::filesystem::temp_directory_path() / ("miniapp-tile-" + std::to_string(::getpid()));
  void SetUp() override { setenv("MINIAPP_CACHE_DIR", dir_.c_str(), 1); }
  void TearDown() override {
    unsetenv("MINIAPP_CACHE_DIR");
    std::filesystem::remove_all(dir_);
  }
  CaseResult run(Case c) const {
    c.tile = 0;
    c.tile_auto = true; // as the plan leaves a GPU's case (tile_left_out)
    config::Settings s;
    s.warmup = 0;
    s.repetitions = 1;
    return run_case(c, s, GetParam());
  }
};

TEST_P(TransposeTileSearch, ChoiceIsRecordedCachedAndReadBack) {
  const CaseResult first = run(transpose_case(Precision::float32));
  ASSERT_EQ(first.status, Status::ok) << first.message;
  EXPECT_TRUE(first.validation.passed);
  EXPECT_FALSE(first.c.tile_auto);
  EXPECT_TRUE(first.c.tile == 32 || first.c.tile == 64) << first.c.tile;
  EXPECT_NE(first.c.tuning.find("searched tile/team 32/0 64/0: chose tile=" +
                                std::to_string(first.c.tile)),
            std::string::npos)
      << first.c.tuning;
  nlohmann::json cache;
  std::ifstream(autotune_cache_path()) >> cache;
  ASSERT_EQ(cache.size(), 1u);
  EXPECT_EQ(cache.begin().value()["tile"], first.c.tile);
  const CaseResult second = run(transpose_case(Precision::float32));
  ASSERT_EQ(second.status, Status::ok) << second.message;
  EXPECT_EQ(second.c.tile, first.c.tile);
  EXPECT_EQ(second.c.tuning, "cached: tile=" + std::to_string(first.c.tile) + " team=0");
}

TEST_P(TransposeTileSearch, DamagedCacheOrEntryIsSearchedAgain) {
  std::filesystem::create_directories(dir_);
  std::ofstream(autotune_cache_path()) << "{ not json";
  const CaseResult rebuilt = run(transpose_case(Precision::float32));
  ASSERT_EQ(rebuilt.status, Status::ok) << rebuilt.message;
  EXPECT_EQ(rebuilt.c.tuning.rfind("searched", 0), 0u) << rebuilt.c.tuning;
  nlohmann::json cache;
  std::ifstream(autotune_cache_path()) >> cache;
  ASSERT_EQ(cache.size(), 1u);        // rewritten whole
  cache.begin().value()["tile"] = 48; // a width the search never tries
  std::ofstream(autotune_cache_path()) << cache.dump();
  testing::internal::CaptureStderr();
  const CaseResult again = run(transpose_case(Precision::float32));
  const std::string err = testing::internal::GetCapturedStderr();
  ASSERT_EQ(again.status, Status::ok) << again.message;
  EXPECT_EQ(again.c.tuning.rfind("searched", 0), 0u) << again.c.tuning;
  EXPECT_NE(err.find("tile 48 is not a candidate"), std::string::npos) << err;
}

// float64 at 64 needs 33,280 bytes of scratch, more than a host team has: refused there, so the
// search keeps 32 (on a GPU both run).
TEST_P(TransposeTileSearch, AWidthTheBackendRefusesIsNoCandidate) {
  const CaseResult r = run(transpose_case(Precision::float64));
  ASSERT_EQ(r.status, Status::ok) << r.message;
  if (!is_gpu_backend(GetParam()))
    EXPECT_EQ(r.c.tile, 32) << r.c.tuning;
}

INSTANTIATE_TEST_SUITE_P(AllBackends, TransposeTileSearch,
                         ::testing::ValuesIn(compiled_backends()));

} // namespace
} // namespace miniapp
