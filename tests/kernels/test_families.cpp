// The family table (kernels/families.hpp) is the one place a family's facts live: the plan records
// the parameters that run, a kernel factory has no defaults of its own, and a name the table does
// not know never reaches another family's numbers.
#include "config/config.hpp"
#include "kernels/families.hpp"
#include "plan/plan.hpp"
#include "core/backends.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace miniapp {
namespace {

Case only_case(const std::string& case_line) {
  const Plan p =
      make_plan(config::parse_config("test.yaml", "name: t\ncases:\n  - " + case_line + "\n", {}));
  EXPECT_EQ(p.cases.size(), 1u);
  return p.cases.at(0);
}

std::vector<double> run_and_fetch(const Case& c) {
  auto k = make_kernel_case(c, compiled_backends().at(0));
  k->upload();
  k->poison();
  k->run();
  k->fence();
  k->download();
  EXPECT_TRUE(k->validate(0).passed) << c.id();
  return k->result();
}

// The defect: a tiled_rb case with no tile was recorded as tile 0 while 128 ran.
TEST(Families, TiledRbWithoutTileRecordsTheTileThatRuns) {
  const Case c = only_case("{family: matmul, variant: tiled_rb, n: 64}");
  EXPECT_EQ(c.tile, 128);
  EXPECT_TRUE(c.uses(Param::tile));
  EXPECT_NE(c.id().find("tile=128"), std::string::npos) << c.id();
  // ... and the same case with the tile written out is the same case.
  const Plan p = make_plan(config::parse_config(
      "test.yaml",
      "name: t\ncases:\n  - {family: matmul, variant: tiled_rb, n: 64, tile: [128, 64]}\n"
      "  - {family: matmul, variant: tiled_rb, n: 64}\n",
      {}));
  EXPECT_EQ(p.cases.size(), 2u);
}

// tile_average's S: 16 in the plan, and the kernel averages 16 x 16 tiles (it used to take 2).
TEST(Families, TileAverageDefaultIsTheSampleTheKernelUses) {
  Case c = only_case("{family: tile_average, variant: leader, n: 32, init: ones}");
  EXPECT_EQ(c.tile, 16);
  EXPECT_EQ(run_and_fetch(c).size(), 4u); // (32/16) x (32/16) averages
}

// tile_index: tile_cols is 3 in the plan and in the map (the kernel used to take the rows, 2).
TEST(Families, TileIndexDefaultColumnsAreTheOnesTheKernelUses) {
  Case c = only_case("{family: tile_index, n: 8}");
  EXPECT_EQ(c.tile, 2);
  EXPECT_EQ(c.tile_cols, 3);
  const std::vector<double> map = run_and_fetch(c);
  // Element (0, 7), field 3: its tile column, 7 / 3.
  EXPECT_EQ(map.at((0 * 8 + 7) * 6 + 3), 2.0);
}

// A factory receives resolved parameters: it refuses a case without them rather than guess.
TEST(Families, FactoriesHaveNoDefaults) {
  Case c;
  c.family = "tile_average";
  c.variant = "leader";
  c.m = c.n = 8;
  EXPECT_THROW(make_kernel_case(c, compiled_backends().at(0)), UnsupportedCase);
  resolve_parameters(c);
  EXPECT_EQ(c.tile, family("tile_average").variant("leader").tile);
  EXPECT_NO_THROW(make_kernel_case(c, compiled_backends().at(0)));
}

TEST(Families, UnknownFamilyThrowsInsteadOfBorrowingNumbers) {
  Case c;
  c.family = "tile_indx";
  c.variant = "team";
  c.m = c.n = 8;
  EXPECT_THROW(family("tile_indx"), UnknownFamily);
  EXPECT_EQ(find_family("tile_indx"), nullptr);
  EXPECT_THROW(case_bytes(c), UnknownFamily); // it used to get tile_index's byte count
  EXPECT_THROW(make_kernel_case(c, compiled_backends().at(0)), UnknownFamily);
  EXPECT_THROW(resolve_parameters(c), UnknownFamily);
  c.family = "matmul";
  c.variant = "team";
  EXPECT_THROW(make_kernel_case(c, compiled_backends().at(0)), UnknownFamily);
}

// Every row's factory builds, runs and validates every variant on the host backends.
TEST(Families, EveryVariantBuildsOnTheHostBackends) {
  for (const std::string& backend : compiled_backends()) {
    if (backend == "cuda" || backend == "hip")
      continue;
    for (const Family& f : families())
      for (const Variant& v : f.variants) {
        Case c;
        c.family = f.name;
        c.variant = v.name;
        c.precision = Precision::float64;
        c.m = 7;
        c.n = 9;
        c.k = 5;
        c.alpha = f.alpha;
        c.beta = f.beta;
        resolve_parameters(c);
        auto k = make_kernel_case(c, backend);
        EXPECT_EQ(k->label(), "miniapp::" + f.name + "::" + v.name);
        k->upload();
        k->poison();
        k->run();
        k->fence();
        k->download();
        EXPECT_TRUE(k->validate(0).passed) << backend << " " << c.id();
      }
  }
}

// The plan records which parameters a variant reads, from the table; the others are cleared.
TEST(Families, PlanRecordsTheParametersAVariantReads) {
  const Case flat = only_case("{family: matmul, variant: flat, n: 8, tile: 16, team_size: 4}");
  EXPECT_EQ(flat.params_used, family("matmul").variant("flat").params);
  EXPECT_FALSE(flat.uses(Param::tile));
  EXPECT_EQ(flat.tile, 0);
  EXPECT_EQ(flat.team_size, 0);
  const Case axpby = only_case("{family: axpby, variant: flat, n: 8}");
  EXPECT_TRUE(axpby.uses(Param::alpha));
  EXPECT_FALSE(axpby.uses(Param::k));
  EXPECT_EQ(axpby.alpha, family("axpby").alpha);
  EXPECT_EQ(axpby.beta, family("axpby").beta);
}

// Device bytes come from the row: matmul's three matrices, axpby's two or three.
// Each variant-specific row of the case-field table has its own Param bit (the family table and
// the results' nulls tell parameters apart by it), and param_named finds a table parameter's.
TEST(CaseFields, EveryParameterHasItsOwnBit) {
  unsigned seen = 0;
  for (const auto& f : case_fields()) {
    if (f.param == Param{})
      continue;
    const unsigned bit = unsigned(f.param);
    EXPECT_EQ(bit & (bit - 1), 0u) << f.name << ": one bit";
    EXPECT_EQ(seen & bit, 0u) << f.name << " shares its bit";
    seen |= bit;
    EXPECT_EQ(param_named(f.name), f.param);
  }
  EXPECT_TRUE(family("transpose").variant("tiled").reads(param_named("pad")));
  EXPECT_FALSE(family("transpose").variant("flat").reads(param_named("pad")));
  EXPECT_THROW(param_named("seed"), std::logic_error); // every case has one: no bit
}

TEST(Families, CaseBytesFromTheTable) {
  const Case mm = only_case("{family: matmul, variant: flat, m: 10, n: 20, k: 30}");
  EXPECT_EQ(case_bytes(mm), 4u * (10 * 30 + 30 * 20 + 10 * 20));
  const Case ax = only_case("{family: axpby, variant: flat, n: 10, in_place: true}");
  EXPECT_EQ(case_bytes(ax), 4u * 2 * 100);
}

// Host memory: the data, and the float64 values each case holds beside it (its validate()).
TEST(Families, CaseHostBytesAddTheFloat64ValuesThatCheckTheCase) {
  const Case mm = only_case("{family: matmul, variant: flat, m: 10, n: 20, k: 30}");
  const std::uint64_t mm_data = 4u * (10 * 30 + 30 * 20 + 10 * 20);
  EXPECT_EQ(case_host_bytes(mm, true, true),
            mm_data + 8u * (2 * (10 * 30 + 30 * 20) + 2 * 10 * 20));
  EXPECT_EQ(case_host_bytes(mm, false, true), mm_data);
  const Case ax = only_case("{family: axpby, variant: flat, n: 10}");
  EXPECT_EQ(case_host_bytes(ax, true, false), 4u * 3 * 100 + 8u * 4 * 100); // A kept; B, ref, bound
  EXPECT_EQ(case_host_bytes(ax, false, false), 4u * 3 * 100 + 8u * 100);
  const Case tr = only_case("{family: transpose, variant: flat, m: 10, n: 20}");
  EXPECT_EQ(case_host_bytes(tr, true, false), 4u * 2 * 200 + 8u * 2 * 200);
  const Case avg = only_case("{family: tile_average, variant: leader, n: 20, tile: 8}");
  EXPECT_EQ(case_host_bytes(avg, true, false), case_bytes(avg) + 8u * 2 * 3 * 3); // 3 x 3 tiles
  const Case idx = only_case("{family: tile_index, variant: team, n: 20}");
  EXPECT_EQ(case_host_bytes(idx, true, false), case_bytes(idx));
  // tiled_rb keeps its packed operands between products: host memory on host backends only.
  const Case rb = only_case("{family: matmul, variant: tiled_rb, m: 10, n: 20, k: 30}");
  EXPECT_EQ(case_host_bytes(rb, false, false), mm_data + 4u * (30 + 256) * (10 + 20 + 256));
  EXPECT_EQ(case_host_bytes(rb, false, true), mm_data);
}

// The plan refuses, at the size's position, a case whose host memory the host cannot hold even
// where the device check passes: float32 axpby 1000 has 12 MB of data and holds 32 MB of float64
// values while it checks itself. Without validation it holds 8 MB (A kept).
TEST(Families, PlanRefusesACaseTheHostCannotHold) {
  const std::string text = "name: t\nbackend: serial\ncases:\n  - family: axpby\n"
                           "    variant: flat\n    n: 1000\n";
  PlanLimits limits;
  limits.memory_bytes = 20'000'000;
  limits.memory_name = "a device";
  limits.host_memory_bytes = 40'000'000;
  try {
    make_plan(config::parse_config("t.yaml", text, {}), limits);
    ADD_FAILURE() << "a case needing 44 MB of a 40 MB host was planned";
  } catch (const config::ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("t.yaml:6:8: the case needs 0.04 GiB of host memory "
                                         "(0.01 GiB of data and 0.03 GiB beside it"),
              std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("; without validation it needs 0.02 GiB"),
              std::string::npos)
        << e.what();
  }
  const Plan p = make_plan(
      config::parse_config("t.yaml", text + "validation:\n  enabled: false\n", {}), limits);
  EXPECT_EQ(p.cases.size(), 1u);
  limits.host_memory_bytes = 0; // not checked
  EXPECT_EQ(make_plan(config::parse_config("t.yaml", text, {}), limits).cases.size(), 1u);
}

} // namespace
} // namespace miniapp
