// Performance portability (compare/portability.hpp): the metric of Pennycook, Sewall and Lee over
// the compared runs, checked against hand-computed values.
#include "compare/portability.hpp"
#include "core/natural_order.hpp"

#include <gtest/gtest.h>

namespace miniapp {
namespace compare {
namespace {

Row row(const std::string& variant, double time, const std::string& status = "ok",
        double gflops = 0, double ceiling = 0) {
  Row r;
  r.family = "matmul";
  r.variant = variant;
  r.precision = "float32";
  r.fields = {{"m", 256}, {"n", 256}, {"k", 256}};
  r.case_id = "matmul/" + variant + "/float32/256x256x256";
  r.time_median = time;
  r.status = status;
  r.valid = status == "ok" ? "true" : "false";
  r.gflops = gflops;
  r.ceiling_value = ceiling;
  r.ceiling_unit = ceiling > 0 ? "GFLOP/s" : "";
  return r;
}

Run run(const std::string& backend, const std::string& device, std::vector<Row> rows) {
  Run r;
  r.backend = backend;
  r.device = device;
  r.rows = std::move(rows);
  return r;
}

const PpScore& score(const Portability& p, const std::string& application) {
  for (const auto& s : p.scores)
    if (s.application == application)
      return s;
  throw std::runtime_error("no score for " + application);
}

TEST(Portability, HarmonicMeanOfArchitecturalEfficiencies) {
  EXPECT_NEAR(harmonic_pp({0.9, 0.6, 0.3}), 0.4909090909, 1e-10);
  EXPECT_EQ(harmonic_pp({0.9, 0.0, 0.3}), 0.0); // a failed platform
  EXPECT_EQ(harmonic_pp({}), 0.0);
}

// Problems in numeric order of their sizes, in the table and so in the cascades (text order put
// 1024 before 128).
TEST(Portability, ProblemsInNumericOrderOfTheirSizes) {
  std::vector<Row> rows;
  for (int n : {2048, 128, 1024}) {
    Row r = row("tiled", 1);
    r.fields = {{"m", n}, {"n", n}, {"k", n}};
    r.case_id = "matmul/tiled/float32/" + std::to_string(n) + "x" + std::to_string(n) + "x" +
                std::to_string(n);
    rows.push_back(r);
  }
  const Portability p = performance_portability({run("openmp", "CPU", rows)}, false);
  ASSERT_EQ(p.scores.size(), 3u);
  EXPECT_EQ(p.scores[0].problem, "matmul/float32/128x128x128");
  EXPECT_EQ(p.scores[1].problem, "matmul/float32/1024x1024x1024");
  EXPECT_EQ(p.scores[2].problem, "matmul/float32/2048x2048x2048");
  EXPECT_EQ(p.entries[2].problem, "matmul/float32/2048x2048x2048");
  EXPECT_TRUE(natural_less("a/9x9", "a/10x10"));
  EXPECT_FALSE(natural_less("a/10x10", "a/9x9"));
  EXPECT_TRUE(natural_less("a/010", "a/11"));
  EXPECT_FALSE(natural_less("same", "same"));
  EXPECT_TRUE(natural_less("ab", "abc"));
}

// Architectural efficiencies 0.9, 0.6, 0.3 on three platforms (rate over same-run ceiling).
TEST(Portability, ArchitecturalPpFromRatesAndCeilings) {
  const Portability p =
      performance_portability({run("openmp", "CPU", {row("tiled", 1, "ok", 90, 100)}),
                               run("cuda", "H100", {row("tiled", 1, "ok", 60, 100)}),
                               run("hip", "MI100", {row("tiled", 1, "ok", 30, 100)})},
                              false);
  ASSERT_EQ(p.platforms.size(), 3u);
  EXPECT_NEAR(score(p, "tiled").arch_pp, 0.4909090909, 1e-10);
  EXPECT_EQ(score(p, "tiled").text(score(p, "tiled").arch_pp), "0.491");
}

// Application efficiencies from times: variant 1 takes 2, 3, 10 s and variant 2 1, 4, 5 s on
// three platforms; the best per platform is 1, 3, 5, so variant 1's efficiencies are 0.5, 1, 0.5
// (PP 0.6) and variant 2's 1, 0.75, 1 (PP 0.9).
TEST(Portability, ApplicationPpFromTimes) {
  const Portability p =
      performance_portability({run("openmp", "CPU", {row("tiled", 2), row("flat", 1)}),
                               run("cuda", "H100", {row("tiled", 3), row("flat", 4)}),
                               run("hip", "MI100", {row("tiled", 10), row("flat", 5)})},
                              false);
  EXPECT_NEAR(score(p, "tiled").app_pp, 0.6, 1e-12);
  EXPECT_NEAR(score(p, "flat").app_pp, 0.9, 1e-12);
  EXPECT_TRUE(score(p, "tiled").complete());
  EXPECT_EQ(score(p, "tiled").arch_pp, -1); // no ceilings in these rows
  // The P3 library's columns, one row per problem, application and platform.
  const std::string csv = portability_csv(p);
  EXPECT_EQ(csv.rfind("problem,application,platform,fom,app eff,arch eff\n", 0), 0u) << csv;
  EXPECT_NE(csv.find("matmul/float32/256x256x256,tiled,openmp on CPU,2,0.5,\n"), std::string::npos)
      << csv;
}

TEST(Portability, AFailedPlatformGivesZero) {
  const Portability p = performance_portability({run("openmp", "CPU", {row("tiled", 2)}),
                                                 run("cuda", "H100", {row("tiled", 3, "invalid")}),
                                                 run("hip", "MI100", {row("tiled", 10)})},
                                                false);
  EXPECT_TRUE(score(p, "tiled").failed);
  EXPECT_EQ(score(p, "tiled").app_pp, 0.0);
  EXPECT_EQ(score(p, "tiled").text(score(p, "tiled").app_pp), "0 (failed on a platform)");
}

TEST(Portability, APlatformThatDidNotRunTheProblemIsIncomplete) {
  const Portability p = performance_portability({run("openmp", "CPU", {row("tiled", 2)}),
                                                 run("cuda", "H100", {row("tiled", 4)}),
                                                 run("hip", "MI100", {row("flat", 10)})},
                                                false);
  const PpScore& s = score(p, "tiled");
  EXPECT_FALSE(s.complete());
  EXPECT_EQ(s.ran, 2u);
  EXPECT_NEAR(s.app_pp, 1.0, 1e-12); // the only application there: efficiency 1 on both
  EXPECT_EQ(s.text(s.app_pp), "incomplete 2/3 (1.000 over those)");
  EXPECT_NE(portability_markdown(p).find("incomplete 2/3"), std::string::npos);
}

// An efficiency above 1 (a cache-resident case above a memory ceiling) is kept and flagged.
TEST(Portability, EfficienciesAboveOneAreNotClipped) {
  const Portability p =
      performance_portability({run("openmp", "CPU", {row("tiled", 1, "ok", 150, 100)})}, false);
  EXPECT_NEAR(p.entries.at(0).arch_eff, 1.5, 1e-12);
  EXPECT_NE(portability_markdown(p).find("1.500 (>1)"), std::string::npos)
      << portability_markdown(p);
}

// Repeated runs of one platform: the best time counts, and a failure only where none succeeded.
TEST(Portability, BestOfRepeatedRunsOnAPlatform) {
  const Portability p = performance_portability({run("openmp", "CPU", {row("tiled", 4, "error")}),
                                                 run("openmp", "CPU", {row("tiled", 2)}),
                                                 run("openmp", "CPU", {row("tiled", 3)})},
                                                false);
  ASSERT_EQ(p.platforms.size(), 1u);
  ASSERT_EQ(p.entries.size(), 1u);
  EXPECT_FALSE(p.entries[0].failed);
  EXPECT_EQ(p.entries[0].fom, 2);
}

// The markdown line of one application.
std::string line_of(const std::string& md, const std::string& application) {
  const auto at = md.find("| matmul/float32/256x256x256 | " + application + " |");
  return at == std::string::npos ? "" : md.substr(at, md.find('\n', at) - at);
}

// Issue 41: `compare --table portability` of one platform printed PP 1.000 on every row. PP
// compares platforms: with one, both PP columns say n/a and why.
TEST(Portability, OnePlatformGivesNoPpButTheReason) {
  const Portability p = performance_portability(
      {run("openmp", "CPU", {row("tiled", 2, "ok", 45, 100), row("flat", 1, "ok", 90, 100)})},
      false);
  const std::string md = portability_markdown(p);
  EXPECT_EQ(line_of(md, "tiled"),
            "| matmul/float32/256x256x256 | tiled | n/a: one platform | n/a: one platform | "
            "0.500 / 0.450 |")
      << md;
  EXPECT_EQ(line_of(md, "flat"),
            "| matmul/float32/256x256x256 | flat | n/a: one platform | n/a: one platform | "
            "1.000 / 0.900 |")
      << md;
  EXPECT_EQ(score(p, "tiled").app_na(), "n/a: one platform");
}

// With one application of a problem its application efficiency is 1 on every platform by
// construction: n/a with the reason, in the PP column, the cells and the CSV; the architectural
// PP over the two platforms stands.
TEST(Portability, OneApplicationGivesNoApplicationEfficiencyButTheReason) {
  const Portability p =
      performance_portability({run("openmp", "CPU", {row("tiled", 2, "ok", 45, 100)}),
                               run("cuda", "H100", {row("tiled", 1, "ok", 90, 100)})},
                              false);
  const std::string md = portability_markdown(p);
  EXPECT_EQ(line_of(md, "tiled"),
            "| matmul/float32/256x256x256 | tiled | n/a: one application for the problem | 0.600 | "
            "n/a / 0.450 | n/a / 0.900 |")
      << md;
  const std::string csv = portability_csv(p);
  EXPECT_NE(csv.find("matmul/float32/256x256x256,tiled,openmp on CPU,2,,0.45\n"), std::string::npos)
      << csv;
  // Two applications: the application efficiency means something again.
  const Portability two =
      performance_portability({run("openmp", "CPU", {row("tiled", 2), row("flat", 1)}),
                               run("cuda", "H100", {row("tiled", 1), row("flat", 2)})},
                              false);
  EXPECT_EQ(score(two, "tiled").app_text(), "0.667");
  EXPECT_EQ(line_of(portability_markdown(two), "tiled").find("n/a"), std::string::npos);
}

// An architectural efficiency of an uncertain ceiling says so with the range, and so does the PP
// computed from it; rows of certain ceilings carry no mark.
TEST(Portability, AnUncertainCeilingMarksItsEfficiencyAndThePp) {
  Row uncertain = row("tiled", 1, "ok", 90, 100);
  uncertain.fields["ceiling_low"] = 29.0;
  uncertain.fields["ceiling_high"] = 117.0;
  const Portability p = performance_portability(
      {run("openmp", "CPU", {row("tiled", 2, "ok", 45, 100)}), run("cuda", "H100", {uncertain})},
      false);
  const std::string md = portability_markdown(p);
  EXPECT_NE(line_of(md, "tiled")
                .find("| 0.600 (uncertain ceiling) | n/a / 0.450 | n/a / "
                      "0.900 (ceiling uncertain 29.0-117.0 GFLOP/s) (uncertain ceiling) |"),
            std::string::npos)
      << md;
  const Portability certain =
      performance_portability({run("openmp", "CPU", {row("tiled", 2, "ok", 45, 100)}),
                               run("cuda", "H100", {row("tiled", 1, "ok", 90, 100)})},
                              false);
  EXPECT_EQ(portability_markdown(certain).find("uncertain"), std::string::npos);
}

// Headers name each platform by its runs' labels (--name, --label), whole; runs of one platform
// share its column, their labels joined.
TEST(Portability, HeadersNameThePlatformsByTheirRunsLabels) {
  compare::Run a = run("openmp", "CPU", {row("tiled", 2), row("flat", 1)});
  a.given_label = "laptop, before the tiling change of November";
  compare::Run b = a;
  b.given_label = "laptop, after it";
  compare::Run c = run("cuda", "NVIDIA H100 80GB HBM3", {row("tiled", 1), row("flat", 2)});
  c.given_label = "Production node on NVIDIA H100 80GB HBM3";
  const Portability p = performance_portability({a, b, c}, false);
  ASSERT_EQ(p.platforms.size(), 2u);
  EXPECT_EQ(p.label(0), "laptop, before the tiling change of November + laptop, after it");
  EXPECT_EQ(p.label(1), "Production node on NVIDIA H100 80GB HBM3");
  const std::string md = portability_markdown(p);
  EXPECT_NE(md.find("| laptop, before the tiling change of November + laptop, after it app / arch "
                    "| Production node on NVIDIA H100 80GB HBM3 app / arch |"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("Production node on NVIDIA H100 80GB HBM3 (cuda on NVIDIA H100 80GB HBM3)"),
            std::string::npos)
      << md;
}

} // namespace
} // namespace compare
} // namespace miniapp
