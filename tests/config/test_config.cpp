// Config -> plan: sweep expansion (cartesian products, zip pairing, duplicates that collapse),
// --set overrides, and the positions of errors. The bad-config corpus (tests/bad_configs) checks
// the command line end to end; these tests check the same code directly and more exhaustively.
#include "app/commands.hpp"
#include "config/config.hpp"
#include "config/yaml_strict.hpp"
#include "config/limits.hpp"
#include "core/backend_names.hpp"
#include "kernels/families.hpp"
#include "plan/plan.hpp"
#include "under_sanitizer.hpp"

#include <gtest/gtest.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <set>
#include <string>
#include <vector>

namespace miniapp {
namespace {

Plan plan_from(const std::string& text, const std::vector<std::string>& overrides = {}) {
  return make_plan(config::parse_config("test.yaml", text, overrides));
}

// The error message ("file:line:col: message") of a config that must be refused.
std::string error_of(const std::string& text, const std::vector<std::string>& overrides = {}) {
  try {
    plan_from(text, overrides);
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
  const Plan p = plan_from(head + "cases:\n"
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
  const Plan p = plan_from(head + "cases:\n  - family: axpby\n    variant: [flat, team]\n"
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
  const Plan p = plan_from(head + "cases:\n  - family: matmul\n    n: 32\n");
  ASSERT_EQ(p.cases.size(), 4u);
  EXPECT_EQ(p.cases[0].variant, "flat");
  EXPECT_EQ(p.cases[1].variant, "tiled");
  EXPECT_EQ(p.cases[2].variant, "tiled_rb");
  EXPECT_EQ(p.cases[3].variant, "vendor");
  // The implicit variant list stands where `variant` does in the order: before the sizes.
  const Plan q = plan_from(head + "cases:\n  - family: axpby\n    n: [8, 16]\n");
  ASSERT_EQ(q.cases.size(), 6u);
  EXPECT_EQ(q.cases[0].variant, "flat");
  EXPECT_EQ(q.cases[1].variant, "flat");
  EXPECT_EQ(q.cases[1].n, 16);
  EXPECT_EQ(q.cases[2].variant, "mdrange");
}

TEST(Sweep, ZipPairsListsElementByElement) {
  const Plan p = plan_from(head + "cases:\n  - family: matmul\n    variant: flat\n"
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
  const Plan p = plan_from(head + "cases:\n  - family: axpby\n    variant: [flat, team]\n"
                                  "    precision: [float32, float64]\n"
                                  "    zip:\n      m: [8, 16]\n      n: [32, 64]\n");
  EXPECT_EQ(p.cases.size(), 2u * 2u * 2u);
  for (const auto& c : p.cases)
    EXPECT_EQ(c.n, c.m * 4) << c.id();
}

TEST(Sweep, VariantsThatIgnoreTileCollapse) {
  // flat and vendor have no tile: the tile sweep gives them one case each.
  const Plan p = plan_from(head + "cases:\n  - family: matmul\n"
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
  EXPECT_EQ(
      plan_from(head + "cases:\n  - family: matmul\n    variant: flat\n" + sweep).cases.size(), 1u);
  EXPECT_EQ(plan_from(head + "cases:\n  - family: axpby\n    variant: flat\n" + sweep).cases.size(),
            3u);
}

TEST(Sweep, SeedSweepKeepsEverySeedOfRandomInputs) {
  const Plan p = plan_from(head + "cases:\n  - family: axpby\n    variant: flat\n    n: 16\n"
                                  "    seed: [1, 2, 3]\n");
  ASSERT_EQ(p.cases.size(), 3u);
  EXPECT_EQ(p.cases[2].seed, 3u);
  // iota inputs do not use the seed: one case.
  EXPECT_EQ(plan_from(head + "cases:\n  - family: axpby\n    variant: flat\n    n: 16\n"
                             "    init: iota\n    seed: [1, 2, 3]\n")
                .cases.size(),
            1u);
}

TEST(Sweep, IdenticalEntriesRunOnce) {
  const std::string c = "  - family: axpby\n    variant: flat\n    n: 16\n";
  EXPECT_EQ(plan_from(head + "cases:\n" + c + c).cases.size(), 1u);
}

TEST(Sweep, DefaultsAreFilledIn) {
  const Plan p = plan_from(head + "cases:\n  - family: matmul\n    variant: tiled\n    n: 24\n"
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

// Issue 12: tiled_rb's tile shapes by name (kernels/matmul_shapes.hpp), for the plan's backend.
std::vector<std::string> tiled_rb_shapes(const Plan& p, int tile, Precision precision) {
  Case c;
  c.family = "matmul";
  c.variant = "tiled_rb";
  c.precision = precision;
  c.tile = tile;
  return shape_names(c, p.backend);
}

const std::string rb_case = head + "cases:\n  - family: matmul\n    variant: tiled_rb\n    n: 64\n";

TEST(Shapes, IdsNameAShapeOnlyWhereTheConfigGivesOne) {
  const Plan plain = plan_from(rb_case);
  ASSERT_EQ(plain.cases.size(), 1u);
  EXPECT_EQ(plain.cases[0].id(), "matmul/tiled_rb/float32/64x64x64/tile=128");
  EXPECT_EQ(plain.cases[0].shape, "");
  const std::string first = tiled_rb_shapes(plain, 128, Precision::float32).front();
  const Plan named = plan_from(rb_case + "    shape: \"" + first + "\"\n");
  EXPECT_EQ(named.cases[0].id(), "matmul/tiled_rb/float32/64x64x64/tile=128/shape=" + first);
  EXPECT_EQ(named.cases[0].shape, first);
  const Plan searched = plan_from(rb_case + "    shape: auto\n");
  EXPECT_TRUE(searched.cases[0].shape_auto);
  EXPECT_EQ(searched.cases[0].id(), "matmul/tiled_rb/float32/64x64x64/tile=128/shape=auto");
  // The other matmul variants read no shape: a swept variant list collapses it away.
  const Plan swept = plan_from(head + "cases:\n  - family: matmul\n    n: 64\n    shape: auto\n");
  ASSERT_EQ(swept.cases.size(), 4u);
  for (const Case& c : swept.cases)
    EXPECT_EQ(c.id().find("/shape=auto") != std::string::npos, c.variant == "tiled_rb") << c.id();
}

TEST(Shapes, EveryListedNameIsTakenAndAListSweeps) {
  const Plan plain = plan_from(rb_case);
  for (Precision pr : {Precision::float32, Precision::float64})
    for (int tile : {64, 128}) {
      const auto names = tiled_rb_shapes(plain, tile, pr);
      ASSERT_FALSE(names.empty());
      std::string list;
      for (const auto& n : names)
        list += (list.empty() ? "" : ", ") + std::string("\"") + n + "\"";
      const Plan p = plan_from(head + "precision: " + to_string(pr) +
                               "\ncases:\n  - family: matmul\n    variant: tiled_rb\n    n: 64\n"
                               "    tile: " +
                               std::to_string(tile) + "\n    shape: [" + list + ", auto]\n");
      ASSERT_EQ(p.cases.size(), names.size() + 1);
      for (size_t i = 0; i < names.size(); ++i)
        EXPECT_EQ(p.cases[i].shape, names[i]);
      EXPECT_TRUE(p.cases.back().shape_auto);
    }
}

TEST(Shapes, AnUnknownNameIsRefusedAtItsPositionWithTheValidNames) {
  const Plan plain = plan_from(rb_case);
  const std::string e = error_of(rb_case + "    tile: 64\n    shape: 7x7/1x1\n");
  EXPECT_EQ(e.rfind("test.yaml:7:12: unknown shape '7x7/1x1' for matmul tiled_rb float32", 0), 0u)
      << e;
  for (const auto& n : tiled_rb_shapes(plain, 64, Precision::float32))
    EXPECT_NE(e.find(n), std::string::npos) << n << " not listed: " << e;
  // A name of the other tile is not one of this tile's.
  const std::string other = tiled_rb_shapes(plain, 128, Precision::float32).front();
  EXPECT_NE(error_of(rb_case + "    tile: 64\n    shape: \"" + other + "\"\n")
                .find("unknown shape '" + other + "'"),
            std::string::npos);
  // With 'tile: auto' a name of either tile is taken (the search keeps to the tiles that have it).
  EXPECT_EQ(plan_from(rb_case + "    tile: auto\n    shape: \"" + other + "\"\n").cases.size(), 1u);
  EXPECT_NE(error_of(head + "cases:\n  - family: axpby\n    n: 8\n    shape: auto\n")
                .find("test.yaml:5:12: shape applies to matmul only"),
            std::string::npos);
  EXPECT_NE(error_of(rb_case + "    shpe: auto\n").find("did you mean 'shape'"), std::string::npos);
}

// On a GPU a fixed team size runs the general kernel, which has no shapes: refused there; the
// host kernel takes any team size with its shape.
TEST(Shapes, AFixedTeamSizeWithAShapeIsRefusedOnGpusOnly) {
  const std::string text = rb_case + "    team_size: 64\n    shape: auto\n";
  if (is_gpu_backend(plan_from(rb_case).backend))
    EXPECT_NE(error_of(text).find("test.yaml:7:12: on a GPU a shape sets the team size"),
              std::string::npos)
        << error_of(text);
  else
    EXPECT_EQ(plan_from(text).cases.at(0).team_size, 64);
}

TEST(Overrides, ReplaceScalarsListsAndNestedKeys) {
  const std::string text = head + "repetitions: 10\ncases:\n  - family: axpby\n"
                                  "    variant: flat\n    n: 16\n";
  const Plan p = plan_from(text, {"repetitions=3", "cases.0.n=[8, 32]", "validation.rtol=1e-3",
                                  "output.formats=[json]", "cases.0.variant=[flat, team]"});
  EXPECT_EQ(p.settings.repetitions, 3);
  EXPECT_DOUBLE_EQ(p.settings.rtol, 1e-3);
  EXPECT_EQ(p.settings.formats, std::vector<std::string>{"json"});
  EXPECT_EQ(p.cases.size(), 4u);
  // Later overrides win; the hash changes with the overrides.
  EXPECT_EQ(plan_from(text, {"repetitions=3", "repetitions=4"}).settings.repetitions, 4);
  EXPECT_NE(plan_from(text).config_hash, p.config_hash);
  EXPECT_EQ(plan_from(text).config_hash, plan_from(text).config_hash);
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
  // A duplicate key is reported with the file's other errors (here the missing 'cases').
  EXPECT_EQ(error_of("name: a\nname: b\n"),
            "test.yaml:2:1: duplicate key 'name' (the first one would be silently lost)\n"
            "test.yaml:1:1: missing required key 'cases' in the experiment");
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

// Issue 16: inputs built to hang, crash or exhaust the loader and the plan. Each is refused with
// its position, quickly; the command-line forms are in tests/bad_configs.
const std::string axpby8 = "cases:\n  - family: axpby\n    n: 8\n";

TEST(Hostile, InputsThatMadeYamlCppYieldEmptyDocumentsForeverAreSyntaxErrors) {
  for (const std::string text : {",", "name: t\n,\n", ",,,", "  ,"}) {
    const auto t0 = std::chrono::steady_clock::now();
    const std::string e = error_of(text);
    EXPECT_NE(e.find("test.yaml:"), std::string::npos) << e;
    EXPECT_NE(e.find("YAML syntax error"), std::string::npos) << text << ": " << e;
    EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(5));
  }
  EXPECT_EQ(error_of("  ,\n"), "test.yaml:1:3: YAML syntax error: unexpected ',' where a value or "
                               "key was expected");
  // Stuck after a document that was read: still a syntax error at the stuck place.
  EXPECT_EQ(error_of("--- ,"),
            "test.yaml:1:5: YAML syntax error: unexpected ',' where a value or key was expected");
  EXPECT_EQ(error_of("- a\n,"),
            "test.yaml:2:1: YAML syntax error: unexpected ',' where a value or key was expected");
}

TEST(Hostile, FileSizeIsCheckedBeforeParsing) {
  const std::string text =
      head + "description: \"" + std::string(config::limits::kMaxFileBytes, 'x') + "\"\n" + axpby8;
  const std::string e = error_of(text);
  EXPECT_EQ(e.rfind("test.yaml:1:1: the file is ", 0), 0u) << e.substr(0, 200);
}

// An endless file (a device) is refused unread; a regular one is read no further than the limit.
TEST(Hostile, FilesAreReadNoFurtherThanTheLimit) {
  try {
    config::read_text_file("/dev/zero", "config file");
    FAIL() << "/dev/zero was read";
  } catch (const config::ConfigError& e) {
    EXPECT_EQ(std::string(e.what()), "/dev/zero:1:1: the config file is a character device, not a "
                                     "regular file; refused unread (it could block or never end)");
  }
  const std::string big = ::testing::TempDir() + "miniapp-over-the-limit.yaml";
  std::ofstream(big) << std::string(config::limits::kMaxFileBytes + 1, '#');
  try {
    config::read_text_file(big, "config file");
    FAIL() << big << " was read";
  } catch (const config::ConfigError& e) {
    EXPECT_EQ(std::string(e.what()), big + ":1:1: the file is more than 1048576 bytes; the limit "
                                           "is 1048576 bytes (docs/config.md, Limits)");
  }
  std::remove(big.c_str());
}

TEST(Hostile, AliasCyclesAreErrorsNotCrashes) {
  EXPECT_EQ(error_of("name: t\ncases: &a [*a]\n"),
            "test.yaml:2:8: an alias refers to a map or list that contains it (a cycle)");
  EXPECT_EQ(error_of("name: t\ncases: &a {family: *a}\n"),
            "test.yaml:2:8: an alias refers to a map or list that contains it (a cycle)");
  EXPECT_EQ(error_of(head + axpby8, {"cases=&a [*a]"}),
            "--set[1] 'cases=&a [*a]':1:7: an alias refers to a map or list that contains it (a "
            "cycle)");
}

TEST(Hostile, AliasBombIsBoundedByTheExpansionLimit) {
  std::string text = head + "l0: &l0 [x, x]\n";
  for (int i = 1; i <= 30; ++i)
    text += "l" + std::to_string(i) + ": &l" + std::to_string(i) + " [*l" + std::to_string(i - 1) +
            ", *l" + std::to_string(i - 1) + "]\n";
  const auto t0 = std::chrono::steady_clock::now();
  const std::string e = error_of(text);
  EXPECT_NE(e.find("values once its aliases are expanded"), std::string::npos) << e;
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(10));
}

TEST(Hostile, LongScalarsAreRefusedByLengthAndParsedWithoutRecursion) {
  const std::string e = error_of("name: " + std::string(30000, 'a') + "\n" + axpby8);
  EXPECT_EQ(e, "test.yaml:1:7: a value of 30000 bytes; the limit is 4096 (see "
               "docs/config.md)");
  // Below the limit, the number checks are loops (std::regex recursed once per character).
  const std::string digits(config::limits::kMaxStringBytes, '9');
  EXPECT_NE(error_of(head + "cases:\n  - family: axpby\n    n: " + digits + "\n")
                .find("out of the 64-bit integer range"),
            std::string::npos);
  const std::string many = "1" + std::string(config::limits::kMaxStringBytes - 1, '0');
  EXPECT_NE(error_of(head + "cases:\n  - family: axpby\n    n: 8\n    alpha: " + many + "\n")
                .find("is not a finite number"),
            std::string::npos);
  // And directly, far beyond the limit.
  config::Source src("direct");
  const YAML::Node big(std::string(200000, '7'));
  EXPECT_THROW(config::read_int(src, big, "n"), config::ConfigError);
  EXPECT_THROW(config::read_double(src, YAML::Node(std::string(200000, '7')), "x"),
               config::ConfigError); // inf
  EXPECT_DOUBLE_EQ(config::read_double(src, YAML::Node("0." + std::string(200000, '5')), "x"),
                   0.5555555555555556);
  std::int64_t v = 0;
  EXPECT_TRUE(config::parse_decimal_int("-9223372036854775808", v));
  EXPECT_EQ(v, INT64_MIN);
  EXPECT_FALSE(config::parse_decimal_int("9223372036854775808", v));
}

TEST(Hostile, NestingDepthIsLimited) {
  const std::string deep = std::string(40, '[') + "x" + std::string(40, ']');
  EXPECT_NE(error_of(head + "description: " + deep + "\n" + axpby8).find("nest deeper than 32"),
            std::string::npos);
}

TEST(Hostile, ExpandedCasesAreCountedBeforeExpanding) {
  // 2000 x 2000 x 3 variants = 12 million cases from a 20 KB file: refused before any is built.
  std::string list = "[1";
  for (int i = 2; i <= 2000; ++i)
    list += ", " + std::to_string(i);
  list += "]";
  const auto t0 = std::chrono::steady_clock::now();
  const std::string e =
      error_of(head + "cases:\n  - family: axpby\n    m: " + list + "\n    n: " + list + "\n");
  EXPECT_EQ(e.rfind("test.yaml:3:5: the config expands to more than 100000 cases (cases[0] alone "
                    "to 12000000",
                    0),
            0u)
      << e;
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(10));
}

TEST(Hostile, ExplicitMatricesRepeatedOverASweepAreBounded) {
  // Two 100 x 100 matrices (20,000 values) copied into each of 51 cases: over 1,000,000 values.
  std::string row = "[1";
  for (int j = 1; j < 100; ++j)
    row += ", 1";
  row += "]";
  std::string matrix = "[" + row;
  for (int i = 1; i < 100; ++i)
    matrix += ", " + row;
  matrix += "]";
  std::string alphas = "[0";
  for (int i = 1; i <= 50; ++i)
    alphas += ", " + std::to_string(i);
  alphas += "]";
  const std::string text = head +
                           "cases:\n  - family: matmul\n    variant: flat\n    n: 100\n"
                           "    a: " +
                           matrix + "\n    b: " + matrix + "\n";
  EXPECT_EQ(error_of(text).find("test.yaml"), std::string::npos) << "the plain config is valid";
  EXPECT_EQ(error_of(text + "    alpha: " + alphas + "\n"),
            "test.yaml:3:5: cases[0] repeats its explicit matrices (20000 values) over 51 cases: "
            "more than 1000000 values in all, the limit (see docs/config.md)");
}

TEST(Hostile, InvalidUtf8IsRefusedAtItsPosition) {
  EXPECT_EQ(error_of("name: t\ndescription: caf\xe9\n" + axpby8),
            "test.yaml:2:17: the text is not valid UTF-8 (an invalid byte here); save the file as "
            "UTF-8");
  // Overlong encodings and surrogates are not UTF-8 either; real multibyte text is.
  EXPECT_NE(error_of("name: t\ndescription: \xc0\xaf\n" + axpby8).find("UTF-8"), std::string::npos);
  EXPECT_NE(error_of("name: t\ndescription: \xed\xa0\x80\n" + axpby8).find("UTF-8"),
            std::string::npos);
  EXPECT_EQ(error_of("name: t\ndescription: caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\n" + axpby8),
            "(accepted)");
  EXPECT_EQ(error_of(head + axpby8, {"description=\xff"}),
            "--set[1] 'description=\xff':1:13: the text is not valid UTF-8 (an invalid byte here)");
}

TEST(Hostile, ValuesAreRangeCheckedAgainstThePrecision) {
  const auto axpby = [](const std::string& precision, const std::string& extra) {
    return "name: t\nprecision: " + precision + "\ncases:\n  - family: axpby\n    n: 8\n" + extra;
  };
  EXPECT_EQ(error_of(axpby("float32", "    alpha: 1e308\n")),
            "test.yaml:6:12: alpha reaches 1e+308, more than float32 holds (3.4e+38); use smaller "
            "values or a wider precision");
  EXPECT_EQ(error_of(axpby("int32", "    beta: 3e9\n")),
            "test.yaml:6:11: beta reaches 3e+09, more than int32 holds (2.15e+09); use smaller "
            "values or a wider precision");
  EXPECT_EQ(error_of(axpby("float64", "    alpha: 1e308\n")), "(accepted)");
  EXPECT_EQ(error_of(axpby("int32", "    alpha: 100000000\n")), "(accepted)");
  // int32 random inputs reach 8: 3e8 * 8 does not fit.
  EXPECT_NE(error_of(axpby("int32", "    alpha: 300000000\n")).find("alpha * A + beta * B reaches"),
            std::string::npos);
  // iota inputs reach m * n - 1.
  EXPECT_NE(error_of("name: t\nprecision: int32\ncases:\n  - family: axpby\n    variant: flat\n"
                     "    n: 50000\n    init: iota\n")
                .find("test.yaml:7:11: an input (init iota) reaches"),
            std::string::npos);
}

TEST(Hostile, SetOnOneOfTwoAliasedCasesChangesOnlyThatOne) {
  const std::string text = head + "cases:\n  - &c {family: axpby, variant: flat, n: 8}\n  - *c\n";
  const Plan p = plan_from(text, {"cases.1.n=16"});
  ASSERT_EQ(p.cases.size(), 2u);
  EXPECT_EQ(p.cases[0].n, 8);
  EXPECT_EQ(p.cases[1].n, 16);
  // A map reached through an alias deeper down is unshared too.
  const std::string deep = head + "validation: &v {rtol: 0.01}\nx: *v\n" + axpby8;
  EXPECT_NE(error_of(deep, {"validation.rtol=0.5"}).find("unknown key 'x'"), std::string::npos);
  // Errors in the copied case still point into the file.
  EXPECT_EQ(error_of(text, {"cases.1.n=0"}),
            "--set[1] 'cases.1.n=0':1:11: n must be between 1 and 2147483647, got 0");
  EXPECT_EQ(error_of(head + "cases:\n  - &c {family: axpby, variant: flat, n: 8}\n  - *c\n",
                     {"cases.1.family=nope"}),
            "--set[1] 'cases.1.family=nope':1:16: unknown family 'nope' (known: matmul, axpby, "
            "tile_average, tile_index, transpose)");
}

TEST(Hostile, TagsOnKeysEmptyZipAndSecondDocumentsInSetAreErrors) {
  EXPECT_EQ(error_of("!!str name: t\n" + axpby8),
            "test.yaml:1:1: explicit YAML tags ('tag:yaml.org,2002:str') are not supported; write "
            "the plain value");
  EXPECT_EQ(error_of(head + "cases:\n  - family: axpby\n    n: 8\n    zip: {}\n"),
            "test.yaml:5:10: cases[0].zip is empty; give it the lists to pair (e.g. zip: {m: [8, "
            "16], n: [4, 8]})");
  EXPECT_EQ(error_of(head + axpby8, {"description=a\n---\nb"}),
            "--set[1] 'description=a\n---\nb':1:15: a second YAML document ('---'); a config holds "
            "exactly one document");
  EXPECT_NE(error_of(head + axpby8, {"description=,"}).find("YAML syntax error in the value"),
            std::string::npos);
}

TEST(Hostile, CaseBytesSaturateInsteadOfWrapping) {
  Case c;
  c.family = "axpby";
  c.m = c.n = std::int64_t(1) << 32; // 2^64 elements: wrapped to 0 before
  EXPECT_EQ(case_bytes(c), UINT64_MAX);
  c.m = c.n = 1000;
  EXPECT_EQ(case_bytes(c), 3u * 1000u * 1000u * 4u);
  EXPECT_NE(error_of(head + "cases:\n  - family: matmul\n    variant: flat\n    m: 2147483647\n"
                            "    n: 2147483647\n    k: 2147483647\n")
                .find("test.yaml:5:8:"),
            std::string::npos);
}

// `miniapp describe` allocated rows x cols x 6 ints unchecked (4294967296 x 4294967296 wrapped
// and segfaulted) and parsed --tile with std::stoi (uncaught on 99999999999x3).
TEST(Hostile, DescribeSizesAreCheckedBeforeAllocating) {
  testing::internal::CaptureStderr();
  EXPECT_EQ(cmd_describe(std::int64_t(1) << 32, std::int64_t(1) << 32, "2x3", "auto", "never"),
            kConfigError);
  EXPECT_EQ(cmd_describe(INT64_MAX, 9, "2x3", "auto", "never"), kConfigError);
  EXPECT_EQ(cmd_describe(1 << 20, 2, "2x3", "auto", "never"), kConfigError);
  EXPECT_EQ(cmd_describe(0, 9, "2x3", "auto", "never"), kConfigError);
  for (const char* tile : {"99999999999x3", "0x3", "2x", "x3", "2x3x4", "-2x3", "2x1025", ""})
    EXPECT_EQ(cmd_describe(8, 9, tile, "auto", "never"), kConfigError) << tile;
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(err.find("stoi"), std::string::npos) << err;
  EXPECT_NE(err.find("--tile must look like RxC with R and C between 1 and 1024 (e.g. 2x3), got "
                     "'99999999999x3'"),
            std::string::npos)
      << err;
  testing::internal::CaptureStdout();
  EXPECT_EQ(cmd_describe(2, 3, "1x2", "auto", "never"), kOk);
  EXPECT_NE(testing::internal::GetCapturedStdout().find("2x3 matrix in 1x2 tiles"),
            std::string::npos);
}

// The host's address space in bytes now (VmSize), to set a limit a little above it.
std::uint64_t address_space_bytes() {
  std::ifstream in("/proc/self/status");
  for (std::string line; std::getline(in, line);)
    if (line.rfind("VmSize:", 0) == 0)
      return std::strtoull(line.c_str() + 7, nullptr, 10) * 1024; // "VmSize:   123456 kB"
  return 0;
}

// std::bad_alloc escaped `validate` (and `run`) and aborted. Within the case limit, a plan can
// still need more memory than a small host has: validate ends with exit 3 naming host memory.
TEST(Hostile, OutOfMemoryWhileExpandingExitsThreeNamingHostMemory) {
  if (MINIAPP_UNDER_SANITIZER)
    GTEST_SKIP() << "the sanitizer's allocator aborts instead of throwing";
  std::string m = "[1", n = "[1";
  for (int i = 2; i <= 300; ++i)
    m += ", " + std::to_string(i);
  for (int i = 2; i <= 333; ++i)
    n += ", " + std::to_string(i);
  const std::string path = "/tmp/miniapp-oom-" + std::to_string(::getpid()) + ".yaml";
  std::ofstream(path) << head << "cases:\n  - family: axpby\n    variant: flat\n    m: " << m
                      << "]\n    n: " << n << "]\n"; // 99,900 cases: about 60 MB of plan
  RunArgs args;
  args.config = path;
  int argc = 0;
  char** argv = nullptr;
  MpiEnv mpi(argc, argv, false);
  const std::uint64_t now = address_space_bytes();
  ASSERT_GT(now, 0u);
  rlimit old{};
  ASSERT_EQ(getrlimit(RLIMIT_AS, &old), 0);
  rlimit tight = old;
  tight.rlim_cur = rlim_t(now + (16u << 20));
  ASSERT_EQ(setrlimit(RLIMIT_AS, &tight), 0);
  testing::internal::CaptureStderr();
  const int rc = cmd_validate(args, mpi);
  setrlimit(RLIMIT_AS, &old);
  const std::string err = testing::internal::GetCapturedStderr();
  std::remove(path.c_str());
  EXPECT_EQ(rc, kRuntimeError) << err;
  EXPECT_NE(err.find("out of host memory (resource: host memory)"), std::string::npos) << err;
}

} // namespace
} // namespace miniapp

// All errors at once: every independent error of a file, each file:line:col, one per line.
namespace miniapp {
namespace {

std::vector<std::string> all_errors_of(const std::string& text) {
  try {
    config::ErrorList errors;
    const auto cfg = config::parse_config("test.yaml", text, {}, &errors);
    make_plan(cfg, {}, errors);
  } catch (const config::ConfigError& e) {
    std::vector<std::string> lines;
    std::string s = e.what();
    for (std::size_t start = 0; start <= s.size();) {
      const std::size_t end = std::min(s.find('\n', start), s.size());
      lines.push_back(s.substr(start, end - start));
      start = end + 1;
    }
    return lines;
  }
  return {};
}

TEST(ConfigErrors, FiveMistakesGiveFiveErrors) {
  const std::string text = "name: my run\n"
                           "cases:\n"
                           "  - family: matmul\n"
                           "    variants: tiled\n"
                           "    precison: float32\n"
                           "    n: \"512\"\n"
                           "    tile: 64\n";
  const auto lines = all_errors_of(text);
  ASSERT_EQ(lines.size(), 5u) << ::testing::PrintToString(lines);
  EXPECT_EQ(lines[0].rfind("test.yaml:1:7: name may hold only", 0), 0u) << lines[0];
  EXPECT_EQ(lines[1].rfind("test.yaml:4:5: unknown key 'variants'", 0), 0u) << lines[1];
  EXPECT_EQ(lines[2].rfind("test.yaml:5:5: unknown key 'precison'", 0), 0u) << lines[2];
  EXPECT_EQ(lines[3].rfind("test.yaml:6:8: n must be an integer", 0), 0u) << lines[3];
  EXPECT_EQ(lines[4].rfind("test.yaml:7:11: matmul tiled needs a tile width", 0), 0u) << lines[4];
  // Without the plan's list, the config stage alone throws its four.
  try {
    config::parse_config("test.yaml", text, {});
    FAIL() << "accepted";
  } catch (const config::ConfigError& e) {
    const std::string what = e.what();
    EXPECT_EQ(std::count(what.begin(), what.end(), '\n'), 3) << what;
  }
}

TEST(ConfigErrors, NoErrorFollowsFromAnother) {
  // A size in error is reported once: not again as a missing size.
  EXPECT_EQ(all_errors_of("name: x\ncases:\n  - {family: axpby, n: \"64\"}\n").size(), 1u);
  EXPECT_EQ(all_errors_of("name: x\ncases:\n  - {family: axpby, zip: {n: [1, x]}}\n").size(), 1u);
  // An unknown family ends its case only; the next case is still checked.
  const auto lines = all_errors_of("name: x\ncases:\n  - {family: matmull, n: 8}\n"
                                   "  - {family: matmul, variant: tiled, n: 8, tile: 99}\n");
  ASSERT_EQ(lines.size(), 2u) << ::testing::PrintToString(lines);
  EXPECT_EQ(lines[0].rfind("test.yaml:3:14: unknown family", 0), 0u) << lines[0];
  EXPECT_EQ(lines[1].rfind("test.yaml:4:50: matmul tiled needs", 0), 0u) << lines[1];
}

// Notes, not silence: what a config asks that changes nothing is said once, never an error.
TEST(ConfigNotes, UnreadValuesDuplicatesAndIdleOverrides) {
  const auto unread = plan_from("name: x\ncases:\n  - {family: matmul, variant: flat, n: 64, "
                                "tile: [4, 8, 16]}\n");
  EXPECT_EQ(unread.cases.size(), 1u);
  ASSERT_EQ(unread.notes.size(), 1u) << ::testing::PrintToString(unread.notes);
  EXPECT_EQ(unread.notes[0].rfind("test.yaml:3:51: note: matmul flat does not read tile", 0), 0u)
      << unread.notes[0];
  // A repeated value: a duplicate no unread value explains.
  const auto twice =
      plan_from("name: x\ncases:\n  - {family: axpby, variant: flat, n: [64, 64]}\n");
  EXPECT_EQ(twice.cases.size(), 1u);
  ASSERT_EQ(twice.notes.size(), 1u) << ::testing::PrintToString(twice.notes);
  EXPECT_NE(twice.notes[0].find("note: cases[0] gives axpby/flat/float32/64x64"), std::string::npos)
      << twice.notes[0];
  // A --set of what the file holds, and one that changes it.
  const std::string file = "name: x\nrepetitions: 10\ncases:\n  - {family: axpby, variant: flat, "
                           "n: 64}\n";
  const auto idle = plan_from(file, {"repetitions=10"});
  ASSERT_EQ(idle.notes.size(), 1u) << ::testing::PrintToString(idle.notes);
  EXPECT_EQ(
      idle.notes[0].rfind("--set[1] 'repetitions=10': note: 'repetitions' already holds 10", 0), 0u)
      << idle.notes[0];
  EXPECT_TRUE(plan_from(file, {"repetitions=5"}).notes.empty());
  // A case that reads all it is given has nothing to say.
  EXPECT_TRUE(plan_from(file).notes.empty());
}

TEST(ConfigErrors, ReportedUpToTheLimit) {
  std::string text = "name: x\ncases:\n  - family: axpby\n    n: 8\n";
  const int keys = config::limits::kMaxReportedErrors + 7;
  for (int i = 0; i < keys; ++i)
    text += "    unknown" + std::to_string(i) + ": 1\n";
  const auto lines = all_errors_of(text);
  ASSERT_EQ(lines.size(), std::size_t(config::limits::kMaxReportedErrors) + 1);
  EXPECT_EQ(lines.back(), "(7 more errors not shown; the limit is " +
                              std::to_string(config::limits::kMaxReportedErrors) + ")");
}

} // namespace
} // namespace miniapp
