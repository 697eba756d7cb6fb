// Issue 44: what tiled_rb chose at launch (kernels/matmul_split_k.hpp, tiled_rb_gpu_choice: the
// parts K was split into, whether the operands were padded) is a column of both results files,
// null for variants that choose nothing, shown by the console where K was split or the operands
// padded, and read back the same from miniapp-bench's JSON (its split_k and padded counters).
#include "kernels/families.hpp"
#include "results/console.hpp"
#include "results/result_fields.hpp"
#include "results/run.hpp"
#include "test_case.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include <sstream>
#include <string>
#include <vector>

namespace miniapp {
namespace {

CaseResult row_of(const std::string& variant, LaunchChoice ran) {
  CaseResult r;
  r.c = case_of("matmul", variant, 1024, 1024, 1024);
  resolve_parameters(r.c);
  r.compute.median = 1e-3;
  r.launch = ran;
  return r;
}

TEST(LaunchChoice, ColumnsOfBothFilesNullWhereNothingIsChosen) {
  Plan plan;
  plan.backend = "openmp";
  const RowContext ctx{plan, 1};
  const auto split = result_json(row_of("tiled_rb", {2, false}), ctx);
  EXPECT_EQ(split["split_k"], 2);
  EXPECT_EQ(split["padded"], false);
  const auto padded = result_json(row_of("tiled_rb", {1, true}), ctx);
  EXPECT_EQ(padded["split_k"], 1);
  EXPECT_EQ(padded["padded"], true);
  const auto flat = result_json(row_of("flat", {}), ctx);
  EXPECT_TRUE(flat["split_k"].is_null());
  EXPECT_TRUE(flat["padded"].is_null());
  // The CSV's cells: the same values' text, empty where null.
  const auto columns = csv_columns();
  const auto at = std::find(columns.begin(), columns.end(), "split_k") - columns.begin();
  ASSERT_LT(std::size_t(at) + 1, columns.size());
  EXPECT_EQ(columns[std::size_t(at) + 1], "padded");
  const auto cells = csv_row(row_of("tiled_rb", {4, true}), plan, 1);
  ASSERT_EQ(cells.size(), columns.size());
  EXPECT_EQ(std::vector<std::string>(cells.begin() + at, cells.begin() + at + 2),
            (std::vector<std::string>{"4", "true"}));
  const auto none = csv_row(row_of("flat", {}), plan, 1);
  EXPECT_EQ(std::vector<std::string>(none.begin() + at, none.begin() + at + 2),
            (std::vector<std::string>{"", ""}));
}

TEST(LaunchChoice, ConsoleSaysWhereKWasSplitOrTheOperandsPadded) {
  Plan plan;
  plan.settings.name = "t";
  plan.backend = "openmp";
  std::ostringstream os;
  print_results_table(os, plan,
                      {row_of("tiled_rb", {2, false}), row_of("tiled_rb", {1, true}),
                       row_of("tiled_rb", {1, false})});
  const std::string out = os.str();
  EXPECT_NE(out.find("tiled_rb, split 2 "), std::string::npos) << out;
  EXPECT_NE(out.find("tiled_rb, padded "), std::string::npos) << out;
  EXPECT_EQ(out.find("split 1"), std::string::npos) << out; // one part: nothing to say
  // A variant text as wide as its column is still followed by a space.
  std::ostringstream wide;
  print_results_table(wide, plan, {row_of("tiled_rb", {16, true})});
  EXPECT_NE(wide.str().find("tiled_rb, split 16, padded float32"), std::string::npos) << wide.str();
}

TEST(LaunchChoice, ReadBackFromTheBenchmarkCounters) {
  const nlohmann::json bench = {{"context", {{"miniapp_backend", "cuda"}}},
                                {"benchmarks",
                                 {{{"name", "matmul/tiled_rb/float32/2049x2049x2049/manual_time"},
                                   {"real_time", 1.0},
                                   {"time_unit", "ms"},
                                   {"FLOP/s", 1e12},
                                   {"split_k", 4},
                                   {"padded", 1}},
                                  {{"name", "matmul/vendor/float32/2049x2049x2049/manual_time"},
                                   {"real_time", 1.0},
                                   {"time_unit", "ms"},
                                   {"FLOP/s", 1e12}}}}};
  const nlohmann::json doc = compare::bench_as_results(bench, "b.json");
  ASSERT_EQ(doc["results"].size(), 2u);
  EXPECT_EQ(doc["results"][0]["split_k"], 4);
  EXPECT_EQ(doc["results"][0]["padded"], true);
  EXPECT_FALSE(doc["results"][1].contains("split_k"));
}

} // namespace
} // namespace miniapp
