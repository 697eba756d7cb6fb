#include "compare/plot_rows.hpp"
#include "kernels/families.hpp"
#include "results/references.hpp"
#include "results/result_fields.hpp"

#include <algorithm>
#include <string>

namespace miniapp {
namespace compare {

namespace {

double number(const nlohmann::json& row, const char* key) {
  const auto it = row.find(key);
  return it != row.end() && it->is_number() ? it->get<double>() : 0.0;
}
std::int64_t integer(const nlohmann::json& row, const char* key) {
  return static_cast<std::int64_t>(number(row, key));
}
std::string text(const nlohmann::json& row, const char* key) {
  const auto it = row.find(key);
  return it != row.end() && it->is_string() ? it->get<std::string>() : std::string();
}
nlohmann::json positive_or_null(double v) {
  return v > 0 ? nlohmann::json(v) : nlohmann::json();
}

// Square problems are "N=512" at N; others "512x256" or "512x512x64" at m*n(*k).
void add_size(nlohmann::json& row) {
  const std::int64_t m = integer(row, "m"), n = integer(row, "n"), k = integer(row, "k");
  if (m == n && (k == 0 || k == n)) {
    row["size"] = n;
    row["size_label"] = "N=" + std::to_string(n);
    return;
  }
  row["size"] = m * n * std::max<std::int64_t>(1, k);
  row["size_label"] = std::to_string(m) + "x" + std::to_string(n) +
                      (k > 0 ? "x" + std::to_string(k) : std::string());
}

// The rates at the slowest and the fastest repetition: the error bar of the rate.
void add_spread(nlohmann::json& row, const Cell& c) {
  const bool known = c.t_min > 0 && c.t_median > 0 && c.t_max > 0;
  row["rate_low"] = known ? c.rate * c.t_median / c.t_max : c.rate;
  row["rate_high"] = known ? c.rate * c.t_median / c.t_min : c.rate;
}

// The roofline's point (achieved GFLOP/s at flops / bytes) and the roof the row's ceiling draws: a
// bandwidth ceiling is a slope (one per memory level), a compute ceiling a flat line named with
// its precision and size. With transfers, the rates include the host<->device copies: a row that
// copies is under the transfer roof (its bytes over its copy time), not its memory's.
void add_roofline(nlohmann::json& row, bool with_transfers) {
  const double flops = number(row, "flops"), bytes = number(row, "bytes");
  const double total = number(row, "total_median_s");
  row["intensity"] = flops > 0 && bytes > 0 ? nlohmann::json(flops / bytes) : nlohmann::json();
  row["achieved_gflops"] =
      positive_or_null(with_transfers && total > 0 ? flops / total / 1e9 : number(row, "gflops"));
  const bool copies = text(row, "transfers") == "copies";
  const double copy_s = number(row, "h2d_median_s") + number(row, "d2h_median_s");
  row["transfer_gbs"] = positive_or_null(copies && copy_s > 0 ? bytes / copy_s / 1e9 : 0);
  const std::string unit = text(row, "ceiling_unit");
  const double value = number(row, "ceiling_value");
  row["roof"] = nullptr;
  if (!(value > 0) || (unit != "GB/s" && unit != "GFLOP/s") ||
      (with_transfers && unit == "GB/s" && copies))
    return;
  std::string name = text(row, "ceiling");
  if (!text(row, "ceiling_level").empty())
    name = text(row, "ceiling_level") + " " + name;
  if (unit == "GFLOP/s")
    name += " " + text(row, "precision") + " " + row["size_label"].get<std::string>();
  row["roof"] = {{"name", name}, {"value", value}, {"unit", unit}, {"sloped", unit == "GB/s"}};
}

} // namespace

nlohmann::json plot_table(const std::vector<Run>& runs, std::size_t baseline, bool with_transfers) {
  Options opt;
  opt.baseline = baseline;
  opt.with_transfers = with_transfers;
  opt.pool = false; // the plots draw every run as given
  opt.keep_rows = true;
  const Comparison c = compare_runs(runs, opt);
  nlohmann::json table = {{"measure", measure_name(with_transfers)},
                          {"baseline", baseline},
                          {"families", family_names()},
                          {"runs", nlohmann::json::array()},
                          {"rows", nlohmann::json::array()}};
  for (const Run& run : c.runs)
    table["runs"].push_back({{"label", run.label()}, {"backend", run.backend}});
  for (std::size_t i = 0; i < c.runs.size(); ++i)
    for (const Line& line : c.lines) {
      const Cell& cell = line.cells[i];
      if (!cell.present)
        continue;
      nlohmann::json row = cell.row.fields.is_object() ? cell.row.fields : nlohmann::json::object();
      for (const auto& f : result_fields()) // every column, null where the file had no value
        if (!row.contains(f.name))
          row[f.name] = nullptr;
      if (text(row, "backend").empty())
        row["backend"] = c.runs[i].backend;
      row["run"] = i;
      row["rate"] = cell.rate;
      row["rate_unit"] = line.unit;
      add_spread(row, cell);
      row["speedup"] = i == baseline ? nlohmann::json() : positive_or_null(cell.ratio);
      // The script rings marked points (core/marks.hpp); a speedup carries the baseline's too.
      row["marks"] = mark_names(cell.marks);
      row["speedup_marks"] =
          i == baseline ? std::vector<std::string>() : mark_names(ratio_marks(line, i, baseline));
      const double pct = references::pct_of_ceiling(cell.row);
      row["ceiling_ratio"] = pct >= 0 ? nlohmann::json(pct / 100) : nlohmann::json();
      add_size(row);
      row["tile_label"] =
          integer(row, "tile") > 0 ? "tile " + std::to_string(integer(row, "tile")) : "";
      add_roofline(row, with_transfers);
      table["rows"].push_back(std::move(row));
    }
  return table;
}

} // namespace compare
} // namespace miniapp
