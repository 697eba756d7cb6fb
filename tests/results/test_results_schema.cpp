// The results schema (issue 11): one field table writes the case id, results.csv and results.json
// and reads them back. Ids stay what earlier runs recorded; values keep their type and every digit;
// parameters a variant does not use are null; schema 1 files still load into the same rows.
#include "config/config.hpp"
#include "core/case_fields.hpp"
#include "kernels/families.hpp"
#include "plan/plan.hpp"
#include "results/run.hpp"
#include "results/result_fields.hpp"
#include "results/results_writer.hpp"
#include "run/driver.hpp"
#include "test_case.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

namespace miniapp {
namespace {

using json = nlohmann::json;

std::string read(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream os;
  os << in.rdbuf();
  return os.str();
}

std::string data(const std::string& rel) {
  return std::string(MINIAPP_SOURCE_DIR) + "/docs/data/" + rel;
}

// A new directory under /tmp, removed with everything in it at the end of the test.
struct TempDir {
  std::string path;
  TempDir() {
    char tmpl[] = "/tmp/miniapp-schema-XXXXXX";
    const char* d = ::mkdtemp(tmpl);
    if (!d)
      throw std::runtime_error("mkdtemp failed");
    path = d;
  }
  ~TempDir() { std::filesystem::remove_all(path); }
};

// A case whose parameter bits (Case::params_used) are its variant's, as the plan sets them: the
// id writes k, alpha, beta and in_place where the variant reads them.
Case table_case(const std::string& family_name, const std::string& variant, std::int64_t m,
                std::int64_t n, std::int64_t k = 0) {
  Case c = case_of(family_name, variant, m, n, k);
  c.params_used = family(family_name).variant(variant).params;
  return c;
}

// A Case rebuilt from the expanded config that results.json echoes (config.cases[]).
Case from_config(const json& j) {
  // null: a parameter the variant does not read (configs recorded since schema 2)
  const auto number = [&](const char* key) {
    return j[key].is_null() ? std::int64_t(0) : j[key].get<std::int64_t>();
  };
  Case c = table_case(j["family"], j["variant"], number("m"), number("n"), number("k"));
  parse_precision(j["precision"], c.precision);
  c.tile = number("tile");
  c.tile_cols = number("tile_cols");
  c.team_size = number("team_size");
  const auto or_default = [&](const char* key, auto fallback) {
    return j[key].is_null() ? fallback : j[key].get<decltype(fallback)>();
  };
  c.alpha = or_default("alpha", c.alpha);
  c.beta = or_default("beta", c.beta);
  c.in_place = or_default("in_place", false);
  c.pinned = or_default("pinned", false);
  c.init = or_default("init", c.init);
  c.seed = or_default("seed", c.seed);
  return c;
}

// Every id the previous code recorded in the shipped runs comes out of the table unchanged:
// `compare` and the autotune cache join old and new runs on it.
TEST(CaseId, SameAsEveryIdRecordedInDocsData) {
  int checked = 0;
  for (const char* run : {"paper_table1-cuda", "paper_table1-cuda-pinned", "paper_table1-serial",
                          "roofline_demo-openmp", "weak_scaling-h200x4/np1"}) {
    const json doc = json::parse(read(data(run) + "/results.json"));
    for (const auto& c : doc["config"]["cases"]) {
      EXPECT_EQ(from_config(c).id(), c["id"].get<std::string>()) << run;
      ++checked;
    }
  }
  EXPECT_GE(checked, 30);
}

TEST(CaseId, PinsEveryPart) {
  Case ax = table_case("axpby", "flat", 4096, 4096);
  ax.alpha = 2;
  ax.beta = 0.5;
  ax.in_place = true;
  EXPECT_EQ(ax.id(), "axpby/flat/float32/4096x4096/a=2,b=0.5/in_place");
  ax.in_place = false;
  ax.alpha = 0.1;
  ax.beta = -1;
  ax.seed = 7;
  EXPECT_EQ(ax.id(), "axpby/flat/float32/4096x4096/a=0.1,b=-1/seed=7");

  Case mm = table_case("matmul", "tiled", 64, 32, 16);
  mm.precision = Precision::float64;
  mm.tile_auto = mm.team_auto = true;
  mm.pinned = true;
  mm.init = "iota";
  mm.seed = 7; // init other than random wins over the seed
  EXPECT_EQ(mm.id(), "matmul/tiled/float64/64x32x16/tile=auto/team=auto/pinned/init=iota");
  mm.tile_auto = mm.team_auto = false;
  mm.tile = 128;
  mm.init = "random";
  mm.seed = 42;
  mm.pinned = false;
  EXPECT_EQ(mm.id(), "matmul/tiled/float64/64x32x16/tile=128");

  Case ti = table_case("tile_index", "team", 64, 64);
  ti.precision = Precision::int32;
  ti.tile = 8;
  ti.tile_cols = 4;
  ti.team_size = 32;
  EXPECT_EQ(ti.id(), "tile_index/team/int32/64x64/tile=8x4/team=32");
}

// Issue 12: a tiled_rb shape is part of the id only where the config names one (or 'auto'), so
// every id recorded before shapes existed stays the same.
TEST(CaseId, ShapeOnlyWhereGiven) {
  Case rb = table_case("matmul", "tiled_rb", 64, 64, 64);
  rb.tile = 128;
  EXPECT_EQ(rb.id(), "matmul/tiled_rb/float32/64x64x64/tile=128");
  rb.shape = "128x128x16/8x8/2";
  EXPECT_EQ(rb.id(), "matmul/tiled_rb/float32/64x64x64/tile=128/shape=128x128x16/8x8/2");
  rb.shape = "";
  rb.shape_auto = true;
  rb.tile_auto = true;
  rb.tile = 0;
  EXPECT_EQ(rb.id(), "matmul/tiled_rb/float32/64x64x64/tile=auto/shape=auto");
}

// A finished case as the runner reports it, without running anything.
CaseResult result_of(const Case& c) {
  CaseResult r;
  r.c = c;
  r.compute = summarize({3e-3, 1e-3, 2e-3});
  r.h2d = summarize({1e-4, 1e-4, 1e-4});
  r.d2h = summarize({2e-4, 2e-4, 2e-4});
  r.total = summarize({3.3e-3, 1.3e-3, 2.3e-3});
  r.validation.checked = r.validation.passed = true;
  r.work.flops = 1;
  r.work.bytes = 1;
  return r;
}

Plan plan_for(const std::vector<Case>& cases) {
  Plan p;
  p.settings.name = "schema";
  p.settings.warmup = 1;
  p.settings.repetitions = 3;
  p.backend = "serial";
  p.cases = cases;
  return p;
}

// A base that names a directory which always exists (here a path cut short at a NUL, as a
// config could once give it) gives up after a bounded number of names instead of spinning.
TEST(RunDirectory, RetriesAreBounded) {
  const TempDir tmp;
  const std::string base = tmp.path + "/x" + std::string(1, '\0') + "y";
  try {
    create_run_directory(base, "run", "");
    FAIL() << "a run directory was created under a cut path";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()).rfind("cannot create a new run directory: ", 0), 0u)
        << e.what();
  }
}

// results.json and results.csv of a run directory written by ResultsWriter.
struct Written {
  json doc;
  std::vector<std::string> csv_lines;
  std::string dir;
};
Written write(const TempDir& tmp, const Plan& plan, const std::vector<CaseResult>& results) {
  Written w;
  w.dir = tmp.path + "/run";
  ResultsWriter writer(create_run_directory("", "", w.dir), plan, json::object());
  for (const auto& r : results)
    writer.add(r);
  EXPECT_EQ(writer.finish(RunStatus::complete), "");
  w.doc = json::parse(read(w.dir + "/results.json"));
  std::istringstream csv(read(w.dir + "/results.csv"));
  for (std::string line; std::getline(csv, line);)
    w.csv_lines.push_back(line);
  return w;
}

std::vector<std::string> split(const std::string& line) {
  std::vector<std::string> out;
  std::string cell;
  std::istringstream in(line);
  while (std::getline(in, cell, ','))
    out.push_back(cell);
  if (!line.empty() && line.back() == ',')
    out.push_back("");
  return out;
}

// The k-th cell of a CSV line counted from its end (1: the last): cells before the later
// columns (the case id) can hold quoted commas, which split() does not read.
std::string cell_from_end(const std::string& line, std::ptrdiff_t k) {
  const auto cells = split(line);
  return cells.at(cells.size() - std::size_t(k));
}
// The cell of `column` in CSV line `row` of `lines` (the header first), counted from the end as
// cell_from_end does, so that columns appended later move nothing.
std::string cell_of(const std::vector<std::string>& lines, std::size_t row,
                    const std::string& column) {
  const auto header = split(lines.at(0));
  const auto at = std::find(header.begin(), header.end(), column);
  if (at == header.end())
    return "(no column " + column + ")";
  return cell_from_end(lines.at(row), header.end() - at);
}

// Issue 41: an uncertain ceiling's range is in both files (ceiling_low, ceiling_high), null where
// the ceiling is certain, and reads back the same.
TEST(ResultsSchema, UncertainCeilingRangeInBothFiles) {
  Case ax = table_case("axpby", "flat", 8, 8);
  Case ax2 = table_case("axpby", "flat", 16, 16);
  ax2.index = 1;
  const Plan plan = plan_for({ax, ax2});
  CaseResult uncertain = result_of(ax);
  uncertain.ceiling = 62.6;
  uncertain.ceiling_low = 4.2;
  uncertain.ceiling_high = 62.6;
  const TempDir tmp;
  const Written w = write(tmp, plan, {uncertain, result_of(ax2)});
  EXPECT_EQ(w.doc["results"].at(0)["ceiling_low"], 4.2);
  EXPECT_EQ(w.doc["results"].at(0)["ceiling_high"], 62.6);
  EXPECT_TRUE(w.doc["results"].at(1)["ceiling_low"].is_null());
  EXPECT_TRUE(w.doc["results"].at(1)["ceiling_high"].is_null());
  ASSERT_EQ(w.csv_lines.size(), 3u);
  EXPECT_EQ(cell_of(w.csv_lines, 1, "ceiling_low"), "4.2");
  EXPECT_EQ(cell_of(w.csv_lines, 1, "ceiling_high"), "62.6");
  EXPECT_EQ(cell_of(w.csv_lines, 2, "ceiling_high"), "");
  const compare::Run run = compare::load_run(w.dir);
  ASSERT_EQ(run.rows.size(), 2u);
  EXPECT_EQ(run.rows[0].number("ceiling_high"), 62.6);
  EXPECT_EQ(run.rows[1].number("ceiling_high"), 0);
}

// Issue 41: the ceiling re-checked after the case and whether it moved (ceiling_recheck,
// ceiling_disturbed) are in both files and read back as the row's mark; null without a ceiling.
TEST(ResultsSchema, DisturbedCeilingInBothFilesAndReadBackAsAMark) {
  Case ax = table_case("axpby", "flat", 8, 8);
  Case ax2 = table_case("axpby", "flat", 16, 16);
  ax2.index = 1;
  Case ax3 = table_case("axpby", "flat", 32, 32);
  ax3.index = 2;
  const Plan plan = plan_for({ax, ax2, ax3});
  CaseResult disturbed = result_of(ax);
  disturbed.ceiling = 62.6;
  disturbed.ceiling_recheck = 8.5;
  disturbed.ceiling_disturbed = true;
  CaseResult quiet = result_of(ax2);
  quiet.ceiling = 62.6;
  quiet.ceiling_recheck = 61;
  CaseResult none = result_of(ax3); // no ceiling
  none.ceiling = 0;
  const TempDir tmp;
  const Written w = write(tmp, plan, {disturbed, quiet, none});
  EXPECT_EQ(w.doc["results"].at(0)["ceiling_disturbed"], true);
  EXPECT_EQ(w.doc["results"].at(0)["ceiling_recheck"], 8.5);
  EXPECT_EQ(w.doc["results"].at(1)["ceiling_disturbed"], false);
  EXPECT_TRUE(w.doc["results"].at(2)["ceiling_disturbed"].is_null());
  EXPECT_TRUE(w.doc["results"].at(2)["ceiling_recheck"].is_null());
  ASSERT_EQ(w.csv_lines.size(), 4u);
  EXPECT_EQ(cell_of(w.csv_lines, 1, "ceiling_recheck"), "8.5");
  EXPECT_EQ(cell_of(w.csv_lines, 1, "ceiling_disturbed"), "true");
  EXPECT_EQ(cell_of(w.csv_lines, 2, "ceiling_disturbed"), "false");
  EXPECT_EQ(cell_of(w.csv_lines, 3, "ceiling_disturbed"), "");
  const compare::Run run = compare::load_run(w.dir);
  ASSERT_EQ(run.rows.size(), 3u);
  EXPECT_TRUE(compare::marks_of(run.rows[0], 2).disturbed);
  EXPECT_FALSE(compare::marks_of(run.rows[1], 2).any());
  EXPECT_FALSE(compare::marks_of(run.rows[2], 2).any());
  const compare::Run csv_run = compare::load_run(w.dir + "/results.csv"); // the CSV alone too
  ASSERT_EQ(csv_run.rows.size(), 3u);
  EXPECT_TRUE(compare::marks_of(csv_run.rows[0], 2).disturbed);
  EXPECT_FALSE(compare::marks_of(csv_run.rows[1], 2).disturbed);
}

// A real matmul run: m stays the integer 256 and the flop count 2 m n k = 33554432 keeps every
// digit (schema 1 wrote 256.0 and 33554400).
TEST(ResultsSchema, MatmulRowIsTypedAndExact) {
  const Plan plan = make_plan(config::parse_config("t.yaml",
                                                   "name: schema\n"
                                                   "backend: serial\n"
                                                   "warmup: 1\n"
                                                   "repetitions: 2\n"
                                                   "cases:\n"
                                                   "  - family: matmul\n"
                                                   "    variant: flat\n"
                                                   "    n: 256\n",
                                                   {}));
  ASSERT_EQ(plan.cases.size(), 1u);
  const CaseResult r = run_case(plan.cases[0], plan.settings, plan.backend);
  ASSERT_EQ(r.status, Status::ok) << r.message;
  const TempDir tmp;
  const Written w = write(tmp, plan, {r});
  EXPECT_EQ(w.doc["schema_version"], 2);
  const json& row = w.doc["results"].at(0);
  EXPECT_TRUE(row["m"].is_number_integer());
  EXPECT_EQ(row["m"].get<std::int64_t>(), 256);
  EXPECT_TRUE(row["repetitions"].is_number_integer());
  EXPECT_EQ(row["flops"].get<double>(), 33554432.0);
  EXPECT_EQ(row["case_id"], plan.cases[0].id());
  EXPECT_EQ(row["case_id"], "matmul/flat/float32/256x256x256");
  EXPECT_EQ(row["compute_times_s"].size(), 2u);
  EXPECT_EQ(row["compute_times_s"][0].get<double>(), r.compute.samples[0]);
  // Energy: measured with the host's counter, or null with the reason (issue 26).
  if (row["energy_j"].is_null()) {
    EXPECT_TRUE(row["energy_note"].is_string());
    EXPECT_FALSE(row["energy_note"].get<std::string>().empty());
  } else {
    EXPECT_GT(row["power_w"].get<double>(), 0);
  }

  // The CSV: its header is the table's names in order; its cells the same values' text.
  ASSERT_EQ(w.csv_lines.size(), 2u);
  std::vector<std::string> names;
  for (const auto& f : result_fields())
    if (f.type != FieldType::number_list)
      names.push_back(f.name);
  EXPECT_EQ(split(w.csv_lines[0]), names);
  // The newest columns (issue 28, then what held the clock down and the launches per sample:
  // issue 26, then an uncertain ceiling's range: issue 41, then tiled_rb's launch choice: issue
  // 44, then the other work beside the case: issue 41), appended after the energy columns (issue
  // 26).
  EXPECT_EQ(std::vector<std::string>(names.end() - 12, names.end()),
            (std::vector<std::string>{"energy_note", "ceiling_source", "team_size_ran",
                                      "clock_limit", "launches_per_sample", "ceiling_low",
                                      "ceiling_high", "ceiling_recheck", "ceiling_disturbed",
                                      "split_k", "padded", "host_others"}));
  // Columns are appended: the references (issue 17), shape (issue 12), then the rounds and the
  // host's load (issue 22).
  const auto shape_at = std::find(names.begin(), names.end(), "shape");
  ASSERT_NE(shape_at, names.end());
  EXPECT_EQ(shape_at[-1], "reference_status");
  ASSERT_GE(names.end() - shape_at, 3);
  EXPECT_EQ(shape_at[1], "rounds");
  EXPECT_EQ(shape_at[2], "host_load");
  const auto cells = split(w.csv_lines[1]);
  ASSERT_EQ(cells.size(), names.size());
  const auto cell = [&](const std::string& name) {
    for (std::size_t i = 0; i < names.size(); ++i)
      if (names[i] == name)
        return cells[i];
    return std::string("(none)");
  };
  EXPECT_EQ(cell("m"), "256");
  EXPECT_EQ(std::strtod(cell("flops").c_str(), nullptr), 33554432.0);
  EXPECT_EQ(std::strtod(cell("time_median_s").c_str(), nullptr), r.compute.median);

  // compare reads both files back into the same row.
  const compare::Run from_json = compare::load_run(w.dir + "/results.json");
  const compare::Run from_csv = compare::run_from_csv(read(w.dir + "/results.csv"), "csv");
  EXPECT_EQ(from_json.schema_version, 2);
  for (const auto* run : {&from_json, &from_csv}) {
    ASSERT_EQ(run->rows.size(), 1u);
    const compare::Row& x = run->rows[0];
    EXPECT_EQ(x.case_id, "matmul/flat/float32/256x256x256");
    EXPECT_EQ(x.integer("m"), 256);
    EXPECT_EQ(x.flops, 33554432.0);
    EXPECT_EQ(x.time_median, r.compute.median);
    EXPECT_EQ(x.valid, "true");
  }
}

// Parameters the case's variant does not use (Case::params_used, set from the family table) are
// null in results.json and empty in results.csv, not a made-up 0; compare does not compare them.
TEST(ResultsSchema, UnusedParametersAreNull) {
  Case ax = table_case("axpby", "flat", 64, 64);
  ax.params_used = unsigned(Param::alpha) | unsigned(Param::beta) | unsigned(Param::in_place);
  ax.alpha = 2;
  ax.beta = 0.5;
  Case rb = table_case("matmul", "tiled_rb", 256, 256, 256);
  rb.params_used = unsigned(Param::k) | unsigned(Param::tile) | unsigned(Param::team_size);
  rb.tile = 128;
  rb.index = 1;
  const Plan plan = plan_for({ax, rb});
  const TempDir tmp;
  const Written w = write(tmp, plan, {result_of(ax), result_of(rb)});
  const json& a = w.doc["results"].at(0);
  const json& m = w.doc["results"].at(1);
  for (const char* unused : {"k", "tile", "tile_cols", "team_size"})
    EXPECT_TRUE(a[unused].is_null()) << "axpby flat " << unused << " = " << a[unused];
  EXPECT_EQ(a["alpha"], 2.0);
  EXPECT_EQ(a["in_place"], false);
  for (const char* unused : {"tile_cols", "alpha", "beta", "in_place"})
    EXPECT_TRUE(m[unused].is_null()) << "tiled_rb " << unused << " = " << m[unused];
  EXPECT_EQ(m["tile"], 128);
  EXPECT_EQ(m["k"], 256);
  // The config echo says the same.
  EXPECT_TRUE(w.doc["config"]["cases"][0]["tile"].is_null());
  EXPECT_EQ(w.doc["config"]["cases"][1]["tile"], 128);

  const auto header = split(w.csv_lines.at(0));
  const auto cells = split(w.csv_lines.at(1));
  for (std::size_t i = 0; i < header.size(); ++i)
    if (header[i] == "tile" || header[i] == "team_size")
      EXPECT_EQ(cells.at(i), "") << header[i];

  const compare::Run run = compare::load_run(w.dir);
  ASSERT_EQ(run.rows.size(), 2u);
  EXPECT_FALSE(run.rows[0].uses(Param::tile));
  EXPECT_TRUE(run.rows[0].uses(Param::alpha));
  EXPECT_FALSE(run.rows[1].uses(Param::alpha));
  EXPECT_EQ(run.rows[1].integer("tile"), 128);
  EXPECT_FALSE(run.rows[0].fields.contains("tile")); // null: no value, so no field
}

// Issue 12: the shape column says which tile shape ran: the list's default where the case names
// none, the named one otherwise; null for variants without shapes. Appended after every older
// column, so readers by position keep working.
TEST(ResultsSchema, ShapeColumnNamesTheShapeThatRan) {
  Case rb = table_case("matmul", "tiled_rb", 64, 64, 64);
  rb.params_used = unsigned(Param::k) | unsigned(Param::tile) | unsigned(Param::shape);
  rb.tile = 64;
  Case named = rb;
  named.index = 1;
  Case fl = table_case("matmul", "flat", 64, 64, 64);
  fl.params_used = unsigned(Param::k);
  fl.index = 2;
  const Plan plan = plan_for({rb, named, fl});
  const std::vector<std::string> shapes = shape_names(rb, plan.backend);
  ASSERT_FALSE(shapes.empty());
  named.shape = shapes.back();
  const TempDir tmp;
  const Written w = write(tmp, plan, {result_of(rb), result_of(named), result_of(fl)});
  EXPECT_EQ(w.doc["results"].at(0)["shape"], shapes.front());
  EXPECT_EQ(w.doc["results"].at(1)["shape"], shapes.back());
  EXPECT_TRUE(w.doc["results"].at(2)["shape"].is_null());
  const auto columns = csv_columns();
  EXPECT_NE(std::find(columns.begin(), columns.end(), "shape"), columns.end());
  const compare::Run run = compare::load_run(w.dir);
  ASSERT_EQ(run.rows.size(), 3u);
  EXPECT_EQ(run.rows[0].text("shape"), shapes.front());
  EXPECT_FALSE(run.rows[2].uses(Param::shape));
}

// Issue 22: ceiling_level names the memory level whose bandwidth is the row's ceiling, in both
// files; null (an empty CSV cell) where the ceiling is a GEMM's or there is none.
TEST(ResultsSchema, CeilingLevelColumnInBothFiles) {
  Case ax = table_case("axpby", "flat", 8, 8);
  Case mm = table_case("matmul", "flat", 8, 8, 8);
  mm.index = 1;
  const Plan plan = plan_for({ax, mm});
  CaseResult in_l2 = result_of(ax);
  in_l2.ceiling_level = "L2";
  const TempDir tmp;
  const Written w = write(tmp, plan, {in_l2, result_of(mm)});
  EXPECT_EQ(w.doc["results"].at(0)["ceiling_level"], "L2");
  EXPECT_TRUE(w.doc["results"].at(1)["ceiling_level"].is_null());
  ASSERT_EQ(w.csv_lines.size(), 3u);
  const auto header = split(w.csv_lines[0]);
  const auto from_end = header.end() - std::find(header.begin(), header.end(), "ceiling_level");
  ASSERT_GT(from_end, 0);
  EXPECT_EQ(cell_from_end(w.csv_lines[1], from_end), "L2");
  EXPECT_EQ(split(w.csv_lines[2]).size(), header.size()); // empty cells, not missing ones
  EXPECT_EQ(cell_from_end(w.csv_lines[2], from_end), "");
}

// Issue 26: the energy columns follow ceiling_level. A measured row has joules, watts and its
// rate per watt; a row without them has nulls (empty CSV cells) and energy_note saying why.
TEST(ResultsSchema, EnergyColumnsInBothFiles) {
  Case ax = case_of("axpby", "flat", 8, 8);
  Case mm = case_of("matmul", "flat", 8, 8, 8);
  mm.index = 1;
  const Plan plan = plan_for({ax, mm});
  CaseResult measured = result_of(ax);
  measured.energy.counter = "NVML board energy (GPU 0000:18:00.0)";
  measured.energy.joules = 0.25;
  measured.energy.watts = 500;
  measured.energy.window_s = 0.8;
  measured.energy.per_watt = 5.5;
  measured.energy.per_watt_unit = "GB/s/W";
  measured.energy.clock_limit = "power cap";
  CaseResult none = result_of(mm);
  none.energy.note = "no energy counter: no powercap package zones";
  const TempDir tmp;
  const Written w = write(tmp, plan, {measured, none});
  const json& a = w.doc["results"].at(0);
  EXPECT_EQ(a["energy_j"], 0.25);
  EXPECT_EQ(a["power_w"], 500.0);
  EXPECT_EQ(a["rate_per_watt"], 5.5);
  EXPECT_EQ(a["rate_per_watt_unit"], "GB/s/W");
  EXPECT_EQ(a["energy_window_s"], 0.8);
  EXPECT_TRUE(a["energy_note"].is_null());
  EXPECT_EQ(a["clock_limit"], "power cap");
  const json& b = w.doc["results"].at(1);
  for (const char* k : {"energy_j", "power_w", "rate_per_watt", "rate_per_watt_unit",
                        "energy_window_s", "energy_counter", "clock_limit"})
    EXPECT_TRUE(b[k].is_null()) << k;
  EXPECT_EQ(b["energy_note"], "no energy counter: no powercap package zones");
  const auto header = split(w.csv_lines[0]);
  const auto level = std::find(header.begin(), header.end(), "ceiling_level");
  ASSERT_NE(level, header.end());
  EXPECT_EQ(std::vector<std::string>(level + 1, header.end()),
            (std::vector<std::string>{
                "energy_j", "power_w", "rate_per_watt", "rate_per_watt_unit", "energy_window_s",
                "energy_counter", "energy_note", "ceiling_source", "team_size_ran", "clock_limit",
                "launches_per_sample", "ceiling_low", "ceiling_high", "ceiling_recheck",
                "ceiling_disturbed", "split_k", "padded", "host_others"}));
  EXPECT_EQ(cell_of(w.csv_lines, 1, "energy_j"), "0.25");
  EXPECT_EQ(cell_of(w.csv_lines, 2, "energy_j"), "");
  EXPECT_EQ(cell_of(w.csv_lines, 2, "energy_note"), "no energy counter: no powercap package zones");
  EXPECT_EQ(cell_of(w.csv_lines, 1, "clock_limit"), "power cap");
  EXPECT_EQ(cell_of(w.csv_lines, 2, "clock_limit"), "");
  const compare::Run run = compare::load_run(w.dir);
  ASSERT_EQ(run.rows.size(), 2u);
  EXPECT_EQ(run.rows[0].fields["power_w"], 500.0);
}

// the reference fields are results columns like any other: written to both files (null
// and empty without a reference) and read back by compare's loader from either.
TEST(ResultsSchema, ReferenceFieldsInBothFiles) {
  Case below = table_case("axpby", "flat", 8, 8);
  Case none = below;
  none.index = 1;
  Case unchecked = below;
  unchecked.index = 2;
  CaseResult b = result_of(below);
  b.reference_status = "below";
  b.reference_unit = "GB/s";
  b.reference = 900;
  CaseResult n = result_of(none);
  n.reference_status = "none";
  const TempDir tmp;
  const Written w = write(tmp, plan_for({below, none, unchecked}), {b, n, result_of(unchecked)});
  const json& rows = w.doc["results"];
  EXPECT_EQ(rows[0]["reference"], 900.0);
  EXPECT_EQ(rows[0]["reference_unit"], "GB/s");
  EXPECT_EQ(rows[0]["reference_status"], "below");
  EXPECT_TRUE(rows[1]["reference"].is_null());
  EXPECT_TRUE(rows[1]["reference_unit"].is_null());
  EXPECT_EQ(rows[1]["reference_status"], "none");
  for (const char* key : {"reference", "reference_unit", "reference_status"})
    EXPECT_TRUE(rows[2][key].is_null()) << key;

  const auto header = split(w.csv_lines.at(0));
  ASSERT_GE(header.size(), 3u);
  // (then the shape column, appended after them: empty for these cases)
  const auto at =
      std::size_t(std::find(header.begin(), header.end(), "reference") - header.begin());
  ASSERT_LE(at + 4, header.size());
  EXPECT_EQ(std::vector<std::string>(header.begin() + at, header.begin() + at + 4),
            (std::vector<std::string>{"reference", "reference_unit", "reference_status", "shape"}));
  ASSERT_EQ(w.csv_lines.size(), 4u);
  const auto tail = [&](std::size_t line) { // from the end: the case id holds a quoted comma
    const auto cells = split(w.csv_lines.at(line));
    const auto from = cells.end() - std::ptrdiff_t(header.size() - at);
    return std::vector<std::string>(from, from + 4);
  };
  EXPECT_EQ(tail(1), (std::vector<std::string>{"900.0", "GB/s", "below", ""}));
  EXPECT_EQ(tail(2), (std::vector<std::string>{"", "", "none", ""}));
  EXPECT_EQ(tail(3), (std::vector<std::string>{"", "", "", ""}));

  for (const auto& run :
       {compare::load_run(w.dir + "/results.json"), compare::load_run(w.dir + "/results.csv")}) {
    ASSERT_EQ(run.rows.size(), 3u);
    EXPECT_EQ(run.rows[0].fields["reference"], 900.0) << run.source;
    EXPECT_EQ(run.rows[0].fields["reference_status"], "below") << run.source;
    EXPECT_EQ(run.rows[1].fields["reference_status"], "none") << run.source;
    EXPECT_FALSE(run.rows[1].fields.contains("reference_unit")) << run.source;
    EXPECT_FALSE(run.rows[2].fields.contains("reference_status")) << run.source;
  }
}

// A double keeps every bit through results.json and results.csv.
TEST(ResultsSchema, DoublesRoundTripExactly) {
  Case ax = table_case("axpby", "flat", 8, 8);
  ax.alpha = 0.1 + 0.2; // 0.30000000000000004
  ax.beta = 1.0 / 3.0;
  const TempDir tmp;
  const Written w = write(tmp, plan_for({ax}), {result_of(ax)});
  EXPECT_EQ(w.doc["results"][0]["alpha"].get<double>(), 0.1 + 0.2);
  for (const auto& run :
       {compare::load_run(w.dir + "/results.json"), compare::load_run(w.dir + "/results.csv")}) {
    EXPECT_EQ(run.rows.at(0).number("alpha"), 0.1 + 0.2);
    EXPECT_EQ(run.rows.at(0).number("beta"), 1.0 / 3.0);
  }
  EXPECT_EQ(csv_text(json(0.1 + 0.2)), "0.30000000000000004");
  EXPECT_EQ(csv_text(json(256)), "256");
  EXPECT_EQ(csv_text(json(std::nan(""))), ""); // as results.json writes it: null
  EXPECT_EQ(csv_text(json()), "");
}

void expect_same(const compare::Row& a, const compare::Row& b) {
  EXPECT_EQ(a.family, b.family);
  EXPECT_EQ(a.variant, b.variant);
  EXPECT_EQ(a.precision, b.precision);
  EXPECT_EQ(a.integer("m"), b.integer("m"));
  EXPECT_EQ(a.integer("n"), b.integer("n"));
  EXPECT_EQ(a.integer("k"), b.integer("k"));
  EXPECT_EQ(a.integer("tile"), b.integer("tile"));
  EXPECT_EQ(a.integer("tile_cols"), b.integer("tile_cols"));
  EXPECT_EQ(a.integer("team_size"), b.integer("team_size"));
  EXPECT_EQ(a.number("alpha"), b.number("alpha"));
  EXPECT_EQ(a.number("beta"), b.number("beta"));
  EXPECT_EQ(a.integer("seed"), b.integer("seed"));
  EXPECT_EQ(a.warmup, b.warmup);
  EXPECT_EQ(a.repetitions, b.repetitions);
  EXPECT_EQ(a.flag("in_place"), b.flag("in_place"));
  EXPECT_EQ(a.flag("pinned"), b.flag("pinned"));
  EXPECT_EQ(a.status, b.status);
  EXPECT_EQ(a.valid, b.valid);
  EXPECT_EQ(a.time_median, b.time_median);
  EXPECT_EQ(a.total_median, b.total_median);
  EXPECT_EQ(a.flops, b.flops);
  EXPECT_EQ(a.gbs, b.gbs);
  EXPECT_EQ(a.ceiling, b.ceiling);
  EXPECT_EQ(a.ceiling_value, b.ceiling_value);
  EXPECT_EQ(a.ranks, b.ranks);
}

// Schema 1 (every number a float, through its 6-digit CSV text) and schema 2 rows of one case
// load alike; the shipped schema 1 runs read the same from their results.json and results.csv.
TEST(ResultsSchema, SchemaOneAndTwoLoadIntoTheSameRows) {
  const json v1_row = {{"family", "matmul"},
                       {"variant", "tiled"},
                       {"precision", "float32"},
                       {"m", 256.0},
                       {"n", 256.0},
                       {"k", 256.0},
                       {"tile", 16.0},
                       {"tile_cols", 0.0},
                       {"team_size", 0.0},
                       {"alpha", 2.0},
                       {"beta", -1.0},
                       {"in_place", false},
                       {"pinned", false},
                       {"seed", 42.0},
                       {"status", "ok"},
                       {"valid", true},
                       {"warmup", 1.0},
                       {"repetitions", 3.0},
                       {"time_median_s", 0.5},
                       {"total_median_s", 0.5},
                       {"flops", 3.35544e+07},
                       {"gbs", 1.5},
                       {"ranks", 1.0},
                       {"ceiling", "vendor GEMM"},
                       {"ceiling_value", 107.244}};
  json v2_row = v1_row;
  for (const char* k : {"m", "n", "k"})
    v2_row[k] = 256;
  v2_row["tile"] = 16;
  v2_row["tile_cols"] = v2_row["team_size"] = 0;
  v2_row["seed"] = 42;
  v2_row["warmup"] = 1;
  v2_row["repetitions"] = 3;
  v2_row["ranks"] = 1;
  v2_row["flops"] = 3.35544e+07; // the same value, so the rows can be equal
  v2_row["case_id"] = "matmul/tiled/float32/256x256x256/tile=16";
  const auto doc = [](int version, const json& row) {
    return json{{"schema_version", version}, {"results", json::array({row})}};
  };
  const compare::Run one = compare::run_from_json(doc(1, v1_row), "v1");
  const compare::Run two = compare::run_from_json(doc(2, v2_row), "v2");
  ASSERT_EQ(one.rows.size(), 1u);
  ASSERT_EQ(two.rows.size(), 1u);
  expect_same(one.rows[0], two.rows[0]);
  EXPECT_EQ(one.rows[0].integer("m"), 256);
  EXPECT_EQ(one.rows[0].integer("tile"), 16);
  EXPECT_EQ(one.rows[0].valid, "true");
  EXPECT_EQ(one.rows[0].case_id, "");
  EXPECT_EQ(two.rows[0].case_id, "matmul/tiled/float32/256x256x256/tile=16");

  // A schema 1 run as it was shipped (tests/fixtures: docs/data holds schema 2 runs now).
  const std::string fixture =
      std::string(MINIAPP_SOURCE_DIR) + "/tests/fixtures/schema1-paper_table1-openmp";
  const compare::Run json_run = compare::load_run(fixture + "/results.json");
  const compare::Run csv_run = compare::run_from_csv(read(fixture + "/results.csv"),
                                                     "schema1-paper_table1-openmp/results.csv");
  EXPECT_EQ(json_run.schema_version, 1);
  ASSERT_EQ(json_run.rows.size(), 6u);
  ASSERT_EQ(csv_run.rows.size(), 6u);
  for (std::size_t i = 0; i < 6; ++i)
    expect_same(json_run.rows[i], csv_run.rows[i]);
  EXPECT_EQ(json_run.rows[0].integer("m"), 128);
  EXPECT_EQ(json_run.rows[0].number("alpha"), 2.0);
  EXPECT_EQ(json_run.rows[0].valid, "true");
}

} // namespace
} // namespace miniapp
