// The 2D block distribution (plan/grid.hpp): grid choice, block ranges with remainders and
// tile units, the "more ranks than blocks" check, and the per-rank memory estimate.
#include "plan/grid.hpp"

#include <gtest/gtest.h>

namespace miniapp::parallel {
namespace {

TEST(Grid, ChoosesTheMostSquareGrid) {
  const std::vector<std::tuple<int, int, int>> expected = {{1, 1, 1}, {2, 1, 2}, {3, 1, 3},
                                                           {4, 2, 2}, {6, 2, 3}, {7, 1, 7},
                                                           {8, 2, 4}, {9, 3, 3}, {12, 3, 4}};
  for (const auto& [ranks, p, q] : expected) {
    const GridShape g = choose_grid(ranks);
    EXPECT_EQ(g.p, p) << ranks;
    EXPECT_EQ(g.q, q) << ranks;
  }
}

TEST(Grid, BlocksCoverTheDimensionWithRemaindersFirst) {
  // 10 elements over 4 parts: 3 3 2 2.
  const std::int64_t sizes[] = {3, 3, 2, 2};
  std::int64_t next = 0;
  for (int p = 0; p < 4; ++p) {
    const Range r = block_range(10, 1, 4, p);
    EXPECT_EQ(r.begin, next);
    EXPECT_EQ(r.size, sizes[p]);
    next = r.end();
    for (std::int64_t i = r.begin; i < r.end(); ++i)
      EXPECT_EQ(block_owner(10, 1, 4, i), p);
  }
  EXPECT_EQ(next, 10);
}

TEST(Grid, TileUnitsKeepTilesWhole) {
  // 19 rows in tiles of 4 = 5 tiles (the last holds 3 rows) over 2 parts: 3 tiles + 2 tiles.
  const Range a = block_range(19, 4, 2, 0), b = block_range(19, 4, 2, 1);
  EXPECT_EQ(a.begin, 0);
  EXPECT_EQ(a.size, 12);
  EXPECT_EQ(b.begin, 12);
  EXPECT_EQ(b.size, 7);
  Case c;
  c.family = "tile_average";
  c.tile = 4;
  c.m = 19;
  c.n = 14;
  for (int q = 0; q < 3; ++q)
    EXPECT_EQ(rank_blocks(c, {1, 3}, 0, q).cols.begin % 4, 0);
}

TEST(Grid, MoreRanksThanBlocksIsRefusedAndNamesTheDimension) {
  Case c;
  c.family = "matmul";
  c.m = 8;
  c.n = 8;
  c.k = 3;
  std::string dim;
  EXPECT_EQ(check_fits(c, {2, 2}, &dim), "");
  EXPECT_NE(check_fits(c, {1, 4}, &dim), "");
  EXPECT_EQ(dim, "k");
  c.family = "tile_average";
  c.tile = 4;
  c.k = 0;
  EXPECT_NE(check_fits(c, {3, 1}, &dim), ""); // 8 rows = 2 tiles for 3 process rows
  EXPECT_EQ(dim, "m");
  EXPECT_EQ(check_fits(c, {2, 2}, &dim), "");
}

TEST(Grid, RankBytesShrinkWithTheGrid) {
  Case c;
  c.family = "axpby";
  c.m = c.n = 1000;
  EXPECT_EQ(rank_case_bytes(c, {1, 1}, 0), 3u * 4u * 1000u * 1000u);
  EXPECT_EQ(rank_case_bytes(c, {2, 2}, 0), 3u * 4u * 500u * 500u);
  c.family = "matmul";
  c.k = 1000;
  // A, B, C blocks of 500x500, two pairs of 500x256 panels (the pipelined SUMMA double-buffers
  // them) and a 500x500 partial product.
  EXPECT_EQ(rank_case_bytes(c, {2, 2}, 0), 4u * (4u * 500u * 500u + 2u * 2u * 500u * 256u));
}

// Issue 16: grid sizes whose product overflows 32 bits, and block_owner's per-element cost.
TEST(Grid, RankCountIsSixtyFourBit) {
  const GridShape g{20857, 411849}; // 2^33 + 1: exactly 1 in 32-bit arithmetic
  EXPECT_EQ(g.ranks(), (std::int64_t(1) << 33) + 1);
  EXPECT_EQ((GridShape{1 << 20, 1 << 20}).ranks(), std::int64_t(1) << 40);
}

TEST(Grid, BlockOwnerAgreesWithBlockRangeEverywhere) {
  for (std::int64_t n : {1, 2, 7, 10, 33, 100})
    for (std::int64_t unit : {1, 3, 16})
      for (int parts = 1; parts <= 9; ++parts) {
        if ((n + unit - 1) / unit < parts)
          continue; // check_fits refuses such a case
        for (int p = 0; p < parts; ++p) {
          const Range r = block_range(n, unit, parts, p);
          for (std::int64_t i = r.begin; i < r.end(); ++i)
            ASSERT_EQ(block_owner(n, unit, parts, i), p)
                << "n=" << n << " unit=" << unit << " parts=" << parts << " i=" << i;
        }
      }
}

TEST(Grid, BlockOwnerIsConstantTimeForHugeGrids) {
  // A million parts: looping over them per element took minutes in the SUMMA panel loop.
  const std::int64_t n = std::int64_t(1) << 31;
  const int parts = 1 << 20;
  std::int64_t sum = 0;
  for (std::int64_t i = 0; i < n; i += n / 4096)
    sum += block_owner(n, 1, parts, i);
  EXPECT_EQ(block_owner(n, 1, parts, n - 1), parts - 1);
  EXPECT_EQ(block_owner(n, 1, parts, 0), 0);
  EXPECT_GT(sum, 0);
}

TEST(Grid, RankBytesSaturateInsteadOfWrapping) {
  Case c;
  c.family = "matmul";
  c.m = c.n = c.k = std::int64_t(1) << 40;
  EXPECT_EQ(rank_case_bytes(c, GridShape{1, 1}, 0), UINT64_MAX);
}

} // namespace
} // namespace miniapp::parallel
