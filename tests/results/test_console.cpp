// The console results table (results/console.cpp): an in-place axpby row is told apart from the
// out-of-place one, %ceiling names its ceiling, and a result above its ceiling carries a mark.
#include "core/host_load.hpp"
#include "core/marks.hpp"
#include "kernels/families.hpp"
#include "results/console.hpp"
#include "test_case.hpp"

#include <gtest/gtest.h>

#include <sstream>
#include <string>

namespace miniapp {
namespace {

// A case as the plan makes it: the family table sets which parameters its variant reads.
Case resolved(const std::string& family, const std::string& variant, std::int64_t m, std::int64_t n,
              std::int64_t k = 0) {
  Case c = case_of(family, variant, m, n, k);
  resolve_parameters(c);
  return c;
}

CaseResult axpby_row(bool in_place, double pct) {
  CaseResult r;
  r.c = resolved("axpby", "flat", 64, 64);
  r.c.in_place = in_place;
  r.compute.median = 1e-5;
  r.gbs = pct / 10;
  r.ceiling_name = "copy bandwidth";
  r.ceiling = 10;
  r.ceiling_unit = "GB/s";
  r.pct_of_ceiling = pct;
  return r;
}

std::string line_of(const std::string& table, const std::string& marker) {
  std::istringstream in(table);
  for (std::string line; std::getline(in, line);)
    if (line.find(marker) != std::string::npos)
      return line;
  return "";
}

TEST(ConsoleTable, InPlaceRowDiffersAndCeilingIsNamed) {
  Plan plan;
  plan.settings.name = "t";
  plan.backend = "openmp";
  std::ostringstream os;
  print_results_table(os, plan, {axpby_row(false, 50), axpby_row(true, 250)});
  const std::string out = os.str();
  const std::string in_place = line_of(out, "flat, in place");
  ASSERT_FALSE(in_place.empty()) << out;
  EXPECT_NE(in_place.find("250.0*a"), std::string::npos) << out;
  EXPECT_NE(line_of(out, "50.0 a").find("flat "), std::string::npos) << out;
  EXPECT_NE(out.find("%ceiling a: of the copy bandwidth, 10.0 GB/s"), std::string::npos) << out;
  EXPECT_NE(out.find("%ceiling *: above 100%"), std::string::npos) << out;
}

// Issue 42: a ceiling reused from the cache (reuse_ceilings) was said to be "measured in this
// run"; the legend now says where each figure came from.
TEST(ConsoleTable, TheLegendSaysWhetherTheCeilingWasMeasuredOrReused) {
  Plan plan;
  const auto legend_of = [&](std::vector<CaseResult> rows) {
    std::ostringstream os;
    print_results_table(os, plan, rows);
    return line_of(os.str(), "%ceiling a:");
  };
  CaseResult reused = axpby_row(false, 50), measured = axpby_row(false, 60);
  reused.ceiling_source = "reused";
  measured.ceiling_source = "measured";
  std::string line = legend_of({reused});
  EXPECT_NE(line.find("reused from the ceiling cache"), std::string::npos) << line;
  EXPECT_EQ(line.find("measured in this run"), std::string::npos) << line;
  line = legend_of({measured});
  EXPECT_NE(line.find(", measured in this run"), std::string::npos) << line;
  EXPECT_EQ(line.find("reused"), std::string::npos) << line;
  line = legend_of({measured, reused});
  EXPECT_NE(line.find("measured in this run or reused from the ceiling cache"), std::string::npos)
      << line;
}

TEST(ConsoleTable, NoMarkWithinTheCeiling) {
  Plan plan;
  std::ostringstream os;
  print_results_table(os, plan, {axpby_row(false, 80)});
  EXPECT_EQ(os.str().find("%ceiling *"), std::string::npos) << os.str();
  EXPECT_EQ(os.str().find("in place"), std::string::npos) << os.str();
}

// Issue 22: rows of different memory levels get their own letters, named by level. Issue 41: a
// row whose ceiling is uncertain (a vendor GEMM whose estimates never settled, a level that read
// slower than a farther one) says so with its range, and the table footnotes it; other rows not.
TEST(ConsoleTable, EachLevelHasItsLetterAndUncertainCeilingsAreMarked) {
  Plan plan;
  CaseResult l2 = axpby_row(false, 50);
  l2.ceiling_level = "L2";
  l2.ceiling = 100;
  CaseResult memory = axpby_row(false, 80);
  memory.ceiling_level = "memory";
  CaseResult mm = axpby_row(false, 50);
  mm.c = resolved("matmul", "tiled", 256, 256, 256);
  mm.ceiling_name = "vendor GEMM";
  mm.ceiling_unit = "GFLOP/s";
  mm.ceiling_low = 29;
  mm.ceiling_high = 117;
  std::ostringstream os;
  print_results_table(os, plan, {l2, memory, mm});
  const std::string out = os.str();
  EXPECT_NE(out.find("%ceiling a: of the L2 copy bandwidth, 100.0 GB/s"), std::string::npos) << out;
  EXPECT_NE(out.find("%ceiling b: of the memory copy bandwidth, 10.0 GB/s"), std::string::npos)
      << out;
  EXPECT_NE(out.find("%ceiling c: of the vendor GEMM float32"), std::string::npos) << out;
  EXPECT_NE(out.find(", ceiling uncertain 29.0-117.0 GFLOP/s\n"), std::string::npos) << out;
  EXPECT_EQ(out.find(", ceiling uncertain", out.find(", ceiling uncertain") + 1),
            std::string::npos)
      << out; // one row only
  EXPECT_NE(out.find("ceiling uncertain LOW-HIGH: the ceiling's estimates did not agree"),
            std::string::npos)
      << out;
  EXPECT_EQ(out.find("%ceiling *"), std::string::npos) << out;

  std::ostringstream certain; // no uncertain row: no mark, no footnote
  print_results_table(certain, plan, {l2, memory});
  EXPECT_EQ(certain.str().find("uncertain"), std::string::npos) << certain.str();
}

// Issue 41: a row whose ceiling moved when re-checked after the case is marked disturbed with the
// re-check, and the table footnotes it; a busy row is marked busy. Rows without marks show none,
// and a table of them no footnote.
TEST(ConsoleTable, DisturbedAndBusyRowsAreMarkedAndOthersNot) {
  Plan plan;
  CaseResult disturbed = axpby_row(false, 50);
  disturbed.ceiling_recheck = 4.2;
  disturbed.ceiling_disturbed = true;
  CaseResult busy = axpby_row(true, 60);
  busy.host_load = 1e6; // above any host's CPUs
  CaseResult quiet = axpby_row(false, 70);
  quiet.c = resolved("transpose", "flat", 64, 64);
  quiet.ceiling_recheck = 9.9; // re-checked, not moved
  quiet.host_load = 0;
  std::ostringstream os;
  print_results_table(os, plan, {disturbed, busy, quiet});
  const std::string out = os.str();
  EXPECT_NE(line_of(out, "50.0 a").find(", ceiling disturbed (re-checked 4.2 GB/s)"),
            std::string::npos)
      << out;
  EXPECT_NE(line_of(out, "in place").find(", busy"), std::string::npos) << out;
  EXPECT_EQ(line_of(out, "in place").find("disturbed"), std::string::npos) << out;
  const std::string plain = line_of(out, "transpose");
  EXPECT_EQ(plain.find("busy"), std::string::npos) << out;
  EXPECT_EQ(plain.find("disturbed"), std::string::npos) << out;
  EXPECT_NE(out.find("ceiling disturbed: the row's ceiling, re-checked after the case, had moved"),
            std::string::npos)
      << out;

  std::ostringstream unmarked;
  print_results_table(unmarked, plan, {quiet});
  EXPECT_EQ(unmarked.str().find("disturbed"), std::string::npos) << unmarked.str();
  EXPECT_EQ(unmarked.str().find("busy"), std::string::npos) << unmarked.str();
}

// The one rule of the marks (core/marks.hpp): each from its column, a ratio marked as both its
// rows, and the texts and legend of none empty.
TEST(Marks, OneRuleAndItsTexts) {
  const Marks none = row_marks(-1, 0.5, 2, false, 0);
  EXPECT_FALSE(none.any());
  EXPECT_EQ(marks_text(none), "");
  EXPECT_EQ(marks_csv(none), "");
  EXPECT_EQ(marks_legend(none), "");
  // Other work measured beside the case decides, whatever the load average: a quiet run that
  // fills both CPUs reads a load of 2.1-2.6 and others of 0-0.1.
  EXPECT_FALSE(row_marks(0.1, 2.6, 2, false, 0).busy);
  EXPECT_TRUE(row_marks(1.3, 0.5, 2, false, 0).busy);
  EXPECT_FALSE(row_marks(kBusyOthersCpus, 9, 2, false, 0).busy);
  // Where it was not measured (several ranks, older rows), the load rule.
  EXPECT_TRUE(row_marks(-1, 2.5, 2, false, 0).busy);
  EXPECT_FALSE(row_marks(-1, 2.5, 0, false, 0).busy); // CPUs unknown: not marked
  EXPECT_FALSE(row_marks(-1, -1, 2, false, 0).busy);  // load unknown
  const Marks disturbed = row_marks(0, 0, 2, true, 0);
  const Marks uncertain = row_marks(0, 0, 2, false, 62.6);
  EXPECT_EQ(marks_text(disturbed), " (disturbed)");
  EXPECT_EQ(marks_text(uncertain), " (uncertain ceiling)");
  const Marks both = disturbed | uncertain | none;
  EXPECT_EQ(marks_text(both), " (disturbed) (uncertain ceiling)");
  EXPECT_EQ(marks_csv(both), "disturbed;uncertain ceiling");
  const std::string legend = marks_legend(disturbed);
  EXPECT_NE(legend.find("(disturbed): "), std::string::npos) << legend;
  EXPECT_EQ(legend.find("(busy)"), std::string::npos) << legend;
  CaseResult r = axpby_row(false, 50);
  r.ceiling_disturbed = true;
  EXPECT_TRUE(marks_of(r, 2).disturbed);
  r.ceiling = 0; // no ceiling: nothing of it to doubt
  EXPECT_FALSE(marks_of(r, 2).disturbed);
}

// The size column: MxNxK where the case's variant reads k (matmul), MxN elsewhere, whatever the
// family's name; "in place" only where the variant reads in_place.
TEST(ConsoleTable, SizeAndInPlaceFollowTheParametersTheCaseUses) {
  Plan plan;
  CaseResult mm = axpby_row(false, 50);
  mm.c = resolved("matmul", "tiled", 64, 32, 16);
  CaseResult tr = axpby_row(false, 50);
  tr.c = resolved("transpose", "flat", 48, 80, 7); // k is not transpose's: cleared
  tr.c.in_place = true;                            // nor is in_place
  std::ostringstream os;
  print_results_table(os, plan, {mm, tr});
  const std::string out = os.str();
  EXPECT_NE(line_of(out, "matmul").find("64x32x16"), std::string::npos) << out;
  const std::string transpose = line_of(out, "transpose");
  EXPECT_NE(transpose.find("48x80 "), std::string::npos) << out;
  EXPECT_EQ(transpose.find("48x80x"), std::string::npos) << out;
  EXPECT_EQ(out.find("in place"), std::string::npos) << out;
  // A copy kernel has no FLOP/s: its rate is GB/s and the GFLOP/s column says "-", not 0.00.
  EXPECT_EQ(transpose.find("0.00"), std::string::npos) << out;
  EXPECT_NE(transpose.find(" - "), std::string::npos) << out;
}

// Multi-rank runs: the measured rows' per-rank spreads, min / mean / max; unmeasured rows left out.
TEST(RankTable, SpreadsOfMeasuredRowsOnly) {
  CaseResult r = axpby_row(false, 50);
  r.compute_ranks = {1e-3, 2e-3, 4e-3};
  r.overlap_ranks = {0.25, 0.5, 0.75};
  r.imbalance = 2;
  CaseResult skipped = axpby_row(false, 50);
  skipped.c.variant = "team";
  skipped.status = Status::unsupported;
  std::ostringstream os;
  print_rank_table(os, {r, skipped}, 4);
  const std::string out = os.str();
  EXPECT_NE(out.find("min / mean / max over 4 ranks"), std::string::npos) << out;
  const std::string row = line_of(out, "axpby");
  EXPECT_NE(row.find("1.00e-03 2.00e-03 4.00e-03"), std::string::npos) << out;
  EXPECT_NE(row.find("0.25 0.50 0.75"), std::string::npos) << out;
  EXPECT_EQ(row.substr(row.size() - 4), "2.00") << out;
  EXPECT_EQ(out.find("team"), std::string::npos) << out;
  // Each row named by its case id: rows of one family and variant are told apart.
  EXPECT_EQ(row.rfind(r.c.id(), 0), 0u) << out;
  CaseResult other = r;
  other.c.n = 128;
  std::ostringstream two;
  print_rank_table(two, {r, other}, 4);
  EXPECT_NE(two.str().find(other.c.id() + " "), std::string::npos) << two.str();
  EXPECT_NE(two.str().find(r.c.id() + " "), std::string::npos) << two.str();
}

// Issue 26: the measured rows' joules, watts and rate per watt after the table, with the
// counter; a row without energy gives its reason once.
TEST(ConsoleTable, EnergyOfMeasuredRowsAndWhyTheOthersHaveNone) {
  Plan plan;
  plan.settings.name = "t";
  plan.backend = "cuda";
  CaseResult measured = axpby_row(false, 80);
  measured.energy.joules = 0.125;
  measured.energy.watts = 431.5;
  measured.energy.per_watt = 6.5;
  measured.energy.per_watt_unit = "GB/s/W";
  measured.energy.counter = "NVML board energy (GPU 0000:18:00.0)";
  CaseResult none = axpby_row(true, 80);
  none.energy.note = "too short to measure: the launches lasted 1 ms";
  std::ostringstream os;
  print_results_table(os, plan, {measured, none});
  const std::string out = os.str();
  const std::string row = line_of(out, "0.125 J");
  ASSERT_FALSE(row.empty()) << out;
  EXPECT_NE(row.find(measured.c.id()), std::string::npos) << out;
  EXPECT_NE(row.find("431.5 W"), std::string::npos) << out;
  EXPECT_NE(row.find("6.5 GB/s/W"), std::string::npos) << out;
  EXPECT_NE(out.find("energy counter: NVML board energy"), std::string::npos) << out;
  EXPECT_NE(out.find("energy of the other rows: too short to measure"), std::string::npos) << out;

  std::ostringstream host;
  none.energy.note = "no energy counter: no powercap package zones";
  print_results_table(host, plan, {none});
  EXPECT_NE(host.str().find("energy: no energy counter: no powercap"), std::string::npos)
      << host.str();
  EXPECT_EQ(host.str().find(" J "), std::string::npos) << host.str();
}

} // namespace
} // namespace miniapp
