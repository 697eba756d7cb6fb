// Config -> plan: sweep expansion (cartesian products, zip pairing, duplicates that collapse),
// --set overrides, and the positions of errors. The bad-config corpus (tests/bad_configs) checks
// the command line end to end; these tests check the same code directly and more exhaustively.
#include "config/config.hpp"
#include "plan/plan.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

namespace miniapp {
namespace {

Plan plan_of(const std::string& text, const std::vector<std::string>& overrides = {}) {
  return make_plan(config::parse_config("test.yaml", text, overrides));
}

// The error message ("file:line:col: message") of a config that must be refused.
std::string error_of(const std::string& text, const std::vector<std::string>& overrides = {}) {
  try {
    plan_of(text, overrides);
  } catch (const config::ConfigError& e) {
    return e.what();
  }
  return "(accepted)";
}

std::vector<std::string> ids(const Plan& p) {
  std::vector<std::string> out;
  for (const auto& c : p.cases)
    out.push_back(c.id());
  return out;
}

const std::string head = "name: t\n";

TEST(Sweep, CartesianProductCountsEveryCombination) {
  const Plan p = plan_of(head + "cases:\n"
                                "  - family: axpby\n"
                                "    variant: [flat, mdrange, team]\n"
                                "    m: [8, 16]\n"
                                "    n: [32, 64, 128, 256]\n"
                                "    alpha: [1, 2]\n");
  EXPECT_EQ(p.cases.size(), 3u * 2u * 4u * 2u);
  const auto v = ids(p);
  EXPECT_EQ(std::set<std::string>(v.begin(), v.end()).size(), v.size()) << "duplicate cases";
  for (size_t i = 0; i < p.cases.size(); ++i)
    EXPECT_EQ(p.cases[i].index, int(i));
}

TEST(Sweep, OrderIsVariantMajorThenSizes) {
  const Plan p = plan_of(head + "cases:\n  - family: axpby\n    variant: [flat, team]\n"
                                "    n: [8, 16]\n");
  ASSERT_EQ(p.cases.size(), 4u);
  EXPECT_EQ(p.cases[0].variant, "flat");
  EXPECT_EQ(p.cases[0].n, 8);
  EXPECT_EQ(p.cases[1].variant, "flat");
  EXPECT_EQ(p.cases[1].n, 16);
  EXPECT_EQ(p.cases[2].variant, "team");
  EXPECT_EQ(p.cases[3].n, 16);
}

TEST(Sweep, MissingVariantMeansEveryVariantOfTheFamily) {
  const Plan p = plan_of(head + "cases:\n  - family: matmul\n    n: 32\n");
  ASSERT_EQ(p.cases.size(), 4u);
  EXPECT_EQ(p.cases[0].variant, "flat");
  EXPECT_EQ(p.cases[1].variant, "tiled");
  EXPECT_EQ(p.cases[2].variant, "tiled_rb");
  EXPECT_EQ(p.cases[3].variant, "vendor");
  // The implicit variant list stands where `variant` does in the order: before the sizes.
  const Plan q = plan_of(head + "cases:\n  - family: axpby\n    n: [8, 16]\n");
  ASSERT_EQ(q.cases.size(), 6u);
  EXPECT_EQ(q.cases[0].variant, "flat");
  EXPECT_EQ(q.cases[1].variant, "flat");
  EXPECT_EQ(q.cases[1].n, 16);
  EXPECT_EQ(q.cases[2].variant, "mdrange");
}

TEST(Sweep, ZipPairsListsElementByElement) {
  const Plan p = plan_of(head + "cases:\n  - family: matmul\n    variant: flat\n"
                                "    zip:\n      m: [8, 16, 32]\n      n: [9, 17, 33]\n"
                                "      k: [10, 18, 34]\n");
  ASSERT_EQ(p.cases.size(), 3u);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(p.cases[i].m, 8 << i);
    EXPECT_EQ(p.cases[i].n, (8 << i) + 1);
    EXPECT_EQ(p.cases[i].k, (8 << i) + 2);
  }
}

TEST(Sweep, ZipIsOneDimensionOfTheProduct) {
  const Plan p = plan_of(head + "cases:\n  - family: axpby\n    variant: [flat, team]\n"
                                "    precision: [float32, float64]\n"
                                "    zip:\n      m: [8, 16]\n      n: [32, 64]\n");
  EXPECT_EQ(p.cases.size(), 2u * 2u * 2u);
  for (const auto& c : p.cases)
    EXPECT_EQ(c.n, c.m * 4) << c.id();
}

TEST(Sweep, VariantsThatIgnoreTileCollapse) {
  // flat and vendor have no tile: the tile sweep gives them one case each.
  const Plan p = plan_of(head + "cases:\n  - family: matmul\n"
                                "    variant: [flat, tiled, vendor]\n    n: 64\n"
                                "    tile: [2, 4, 8, 16, 32]\n");
  EXPECT_EQ(p.cases.size(), 1u + 5u + 1u);
  const auto flat = std::count_if(p.cases.begin(), p.cases.end(),
                                  [](const Case& c) { return c.variant == "flat"; });
  EXPECT_EQ(flat, 1);
  for (const auto& c : p.cases)
    if (c.variant != "tiled")
      EXPECT_EQ(c.tile, 0) << c.id();
}

TEST(Sweep, AlphaBetaSweepCollapsesForMatmulButNotForAxpby) {
  const std::string sweep = "    n: 16\n    alpha: [1, 2, 3]\n";
  EXPECT_EQ(plan_of(head + "cases:\n  - family: matmul\n    variant: flat\n" + sweep).cases.size(),
            1u);
  EXPECT_EQ(plan_of(head + "cases:\n  - family: axpby\n    variant: flat\n" + sweep).cases.size(),
            3u);
}

TEST(Sweep, SeedSweepKeepsEverySeedOfRandomInputs) {
  const Plan p = plan_of(head + "cases:\n  - family: axpby\n    variant: flat\n    n: 16\n"
                                "    seed: [1, 2, 3]\n");
  ASSERT_EQ(p.cases.size(), 3u);
  EXPECT_EQ(p.cases[2].seed, 3u);
  // iota inputs do not use the seed: one case.
  EXPECT_EQ(plan_of(head + "cases:\n  - family: axpby\n    variant: flat\n    n: 16\n"
                           "    init: iota\n    seed: [1, 2, 3]\n")
                .cases.size(),
            1u);
}

TEST(Sweep, IdenticalEntriesRunOnce) {
  const std::string c = "  - family: axpby\n    variant: flat\n    n: 16\n";
  EXPECT_EQ(plan_of(head + "cases:\n" + c + c).cases.size(), 1u);
}

TEST(Sweep, DefaultsAreFilledIn) {
  const Plan p = plan_of(head + "cases:\n  - family: matmul\n    variant: tiled\n    n: 24\n"
                                "  - family: tile_index\n    n: 9\n"
                                "  - family: tile_average\n    variant: leader\n    n: 9\n");
  ASSERT_EQ(p.cases.size(), 3u);
  EXPECT_EQ(p.cases[0].m, 24);
  EXPECT_EQ(p.cases[0].k, 24);
  EXPECT_EQ(p.cases[0].tile, 16);
  EXPECT_EQ(p.cases[1].tile, 2);
  EXPECT_EQ(p.cases[1].tile_cols, 3);
  EXPECT_EQ(p.cases[2].tile, 16);
  EXPECT_EQ(p.settings.warmup, 2);
  EXPECT_EQ(p.settings.repetitions, 10);
  EXPECT_TRUE(p.settings.validate);
  EXPECT_EQ(p.cases[0].precision, Precision::float32);
  EXPECT_NE(p.backend, "auto");
}

TEST(Overrides, ReplaceScalarsListsAndNestedKeys) {
  const std::string text = head + "repetitions: 10\ncases:\n  - family: axpby\n"
                                  "    variant: flat\n    n: 16\n";
  const Plan p = plan_of(text, {"repetitions=3", "cases.0.n=[8, 32]", "validation.rtol=1e-3",
                                "output.formats=[json]", "cases.0.variant=[flat, team]"});
  EXPECT_EQ(p.settings.repetitions, 3);
  EXPECT_DOUBLE_EQ(p.settings.rtol, 1e-3);
  EXPECT_EQ(p.settings.formats, std::vector<std::string>{"json"});
  EXPECT_EQ(p.cases.size(), 4u);
  // Later overrides win; the hash changes with the overrides.
  EXPECT_EQ(plan_of(text, {"repetitions=3", "repetitions=4"}).settings.repetitions, 4);
  EXPECT_NE(plan_of(text).config_hash, p.config_hash);
  EXPECT_EQ(plan_of(text).config_hash, plan_of(text).config_hash);
}

TEST(Overrides, AreCheckedLikeTheFileAndPlacedInTheirText) {
  const std::string text = head + "cases:\n  - family: axpby\n    variant: flat\n    n: 16\n";
  EXPECT_EQ(error_of(text, {"repetitions=0"}),
            "--set[1] 'repetitions=0':1:13: repetitions must be between 1 and 1000000, got 0");
  EXPECT_EQ(error_of(text, {"warmup=1", "repetitons=2"}),
            "--set[2] 'repetitons=2':1:1: unknown key 'repetitons' in the experiment (did you "
            "mean 'repetitions'?)");
  EXPECT_EQ(error_of(text, {"cases.0.n=[8, 0x10]"}),
            "--set[1] 'cases.0.n=[8, 0x10]':1:15: n: '0x10' is hexadecimal/octal/binary; write the "
            "value in decimal");
  EXPECT_EQ(error_of(text, {"cases.1.n=8"}),
            "--set[1] 'cases.1.n=8':1:7: '1' is not an index of the list 'cases' (it has 1 "
            "entries: 0 to 0)");
  EXPECT_EQ(error_of(text, {"name.first=x"}),
            "--set[1] 'name.first=x':1:6: 'name' holds a single value, not a map; cannot set "
            "'name.first'");
  EXPECT_EQ(error_of(text, {"n16"}),
            "--set[1] 'n16':1:1: expected key=value, e.g. repetitions=5 or cases.0.n=[64,128]");
  EXPECT_EQ(error_of(text, {"alpha=.inf"}).rfind("--set[1] 'alpha=.inf':1:1: unknown key", 0), 0u);
}

TEST(Strictness, PositionsOfErrorsInTheFile) {
  EXPECT_EQ(error_of(""), "test.yaml:1:1: the config is empty (expected a map with 'name' and "
                          "'cases')");
  EXPECT_EQ(error_of("name: a\nname: b\n"),
            "test.yaml:2:1: duplicate key 'name' (the first one would be silently lost)");
  EXPECT_EQ(error_of("name: t\ncases:\n  - family: axpby\n    n:\n"),
            "test.yaml:4:5: n must be an integer, got nothing (null)");
  EXPECT_EQ(error_of("name: t\ncases: []\n---\nname: u\n"),
            "test.yaml:3:1: a second YAML document ('---'); a config holds exactly one document");
  EXPECT_EQ(error_of("name: t\ncases:\n  - family: axpby\n    n: 007\n"),
            "test.yaml:4:8: n: '007' has a leading zero (YAML readers may take it as octal); "
            "write it without the zero");
  EXPECT_EQ(error_of("name: t\ncases:\n  - family: tile_average\n    n: 8\n    tile: [2, 0]\n"),
            "test.yaml:5:15: tile must be 'auto' or between 1 and 1024, got 0");
}

} // namespace
} // namespace miniapp
