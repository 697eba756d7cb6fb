// tile: auto / team_size: auto: the search picks an allowed value, records it, and the second run
// of the same kernel and size class is answered by the cache.
#include "run/autotune.hpp"
#include "run/backends.hpp"
#include "run/runner.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <unistd.h>

namespace miniapp {
namespace {

class Autotune : public ::testing::TestWithParam<std::string> {
protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("miniapp-autotune-" + GetParam() + "-" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir_);
    setenv("MINIAPP_CACHE_DIR", dir_.c_str(), 1);
  }
  void TearDown() override {
    unsetenv("MINIAPP_CACHE_DIR");
    std::filesystem::remove_all(dir_);
  }
  std::filesystem::path dir_;
};

TEST_P(Autotune, TiledWidthIsSearchedRecordedAndCached) {
  Case c;
  c.family = "matmul";
  c.variant = "tiled";
  c.precision = Precision::float32;
  c.m = c.n = c.k = 40;
  c.tile_auto = true;
  config::Settings s;
  s.warmup = 0;
  s.repetitions = 1;
  const CaseResult first = run_case(c, s, GetParam(), RunOptions{});
  ASSERT_EQ(first.status, "ok") << first.message;
  EXPECT_FALSE(first.c.tile_auto);
  const auto allowed = tile_candidates(c, false);
  EXPECT_NE(std::find(allowed.begin(), allowed.end(), first.c.tile), allowed.end()) << first.c.tile;
  EXPECT_NE(first.c.tuning.find("searched"), std::string::npos) << first.c.tuning;
  EXPECT_TRUE(first.validation.passed);
  ASSERT_TRUE(std::filesystem::exists(autotune_cache_path()));

  c.m = c.n = c.k = 50; // same size class (2^5): the cache answers
  const CaseResult second = run_case(c, s, GetParam(), RunOptions{});
  ASSERT_EQ(second.status, "ok") << second.message;
  EXPECT_EQ(second.c.tile, first.c.tile);
  EXPECT_EQ(second.c.tuning.rfind("cached", 0), 0u) << second.c.tuning;
}

TEST_P(Autotune, DamagedCacheIsRebuiltNotTrusted) {
  std::filesystem::create_directories(dir_);
  std::ofstream(autotune_cache_path()) << "{ not json";
  Case c;
  c.family = "axpby";
  c.variant = "team";
  c.m = 17;
  c.n = 33;
  c.team_auto = true;
  const Case tuned = autotune(c, GetParam(), "test device");
  EXPECT_GT(tuned.team_size, 0);
  EXPECT_NE(tuned.tuning.find("searched"), std::string::npos) << tuned.tuning;
}

INSTANTIATE_TEST_SUITE_P(AllBackends, Autotune, ::testing::ValuesIn(compiled_backends()));

} // namespace
} // namespace miniapp
