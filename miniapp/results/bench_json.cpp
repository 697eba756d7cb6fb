// miniapp-bench's Google Benchmark JSON as a run for `miniapp compare`: each kernel benchmark is
// named by its case id (bench/kernel_bench.cpp), so its rows join the rows of `miniapp run` results
// of the same case. The ceiling and launch benchmarks are not cases and are left out; the copy
// ceiling is each row's ceiling, as `miniapp run` records its own, unless the row carries its own
// (miniapp-bench --miniapp-config: the ceiling the run attaches to the same case).
#include "results/run.hpp"
#include "core/backend_names.hpp"
#include "kernels/families.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <map>
#include <stdexcept>

namespace miniapp {
namespace compare {

namespace {
const std::map<std::string, double> kTimeUnit = {
    {"ns", 1e-9}, {"us", 1e-6}, {"ms", 1e-3}, {"s", 1.0}};

bool digits(const std::string& s) {
  return !s.empty() && s.size() < 19 &&
         std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isdigit(c); });
}
std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out(1);
  for (char c : s)
    if (c == sep)
      out.emplace_back();
    else
      out.back().push_back(c);
  return out;
}

// The case id of a benchmark name ("axpby/flat/float32/64x64/a=2,b=3/manual_time" ->
// "axpby/flat/float32/64x64/a=2,b=3"): Google Benchmark's own trailing segments (manual_time,
// iterations:3, repeats:5 ...) removed. The id's parts as results columns, or false when the
// name is not a case's (ceiling/copy, launch/kokkos_empty, names of older builds).
bool case_row(const std::string& name, nlohmann::json& row) {
  std::vector<std::string> parts = split(name, '/');
  while (!parts.empty() && (parts.back() == "manual_time" || parts.back() == "real_time" ||
                            parts.back().find(':') != std::string::npos))
    parts.pop_back();
  if (parts.size() < 4)
    return false;
  const std::string& p = parts[2];
  if (p != "float32" && p != "float64" && p != "int32")
    return false;
  const std::vector<std::string> dims = split(parts[3], 'x');
  if (dims.size() < 2 || dims.size() > 3 || !std::all_of(dims.begin(), dims.end(), digits))
    return false;
  std::string id;
  for (const auto& part : parts)
    id += (id.empty() ? "" : "/") + part;
  row = {{"case_id", id},  {"family", parts[0]},       {"variant", parts[1]},
         {"precision", p}, {"m", std::stoll(dims[0])}, {"n", std::stoll(dims[1])}};
  if (dims.size() == 3)
    row["k"] = std::stoll(dims[2]);
  // The parameters compare's notes check, from the id's segments (core/case_fields.cpp); the
  // seed is the default unless the id names another.
  row["seed"] = Case().seed;
  row["in_place"] = row["pinned"] = false;
  for (std::size_t i = 4; i < parts.size(); ++i) {
    const std::string& s = parts[i];
    const auto value = [&](const char* prefix) {
      return s.rfind(prefix, 0) == 0 ? s.substr(std::string(prefix).size()) : std::string();
    };
    if (const std::string t = value("tile="); !t.empty()) {
      const std::vector<std::string> w = split(t, 'x');
      if (digits(w[0]))
        row["tile"] = std::stoll(w[0]);
      if (w.size() == 2 && digits(w[1]))
        row["tile_cols"] = std::stoll(w[1]);
    } else if (const std::string team = value("team="); digits(team)) {
      row["team_size"] = std::stoll(team);
    } else if (const std::string seed = value("seed="); digits(seed)) {
      row["seed"] = std::stoll(seed);
    } else if (const std::string ab = value("a="); !ab.empty()) { // "a=2,b=-1"
      const auto comma = ab.find(",b=");
      char* end = nullptr;
      row["alpha"] = std::strtod(ab.substr(0, comma).c_str(), &end);
      if (comma != std::string::npos)
        row["beta"] = std::strtod(ab.substr(comma + 3).c_str(), &end);
    } else if (s == "in_place" || s == "pinned") {
      row[s] = true;
    }
  }
  return true;
}

// Names of builds before case ids ("matmul/tiled16/float32/512/manual_time",
// "tile_average/leader/float32/S16/1024/manual_time"): square sizes, the tile in the variant's
// digits or an S segment, k = N where the family's cases read k. They carry no case id, so their
// rows join other runs' on (family, variant, precision, size, tile).
bool older_case_row(const std::string& name, nlohmann::json& row) {
  const std::vector<std::string> parts = split(name, '/');
  if (parts.size() < 4 || parts[0].empty())
    return false;
  std::string variant = parts[1], tile;
  while (!variant.empty() && std::isdigit(static_cast<unsigned char>(variant.back()))) {
    tile.insert(tile.begin(), variant.back());
    variant.pop_back();
  }
  const std::string& p = parts[2];
  if (variant.empty() || (p != "float32" && p != "float64" && p != "int32"))
    return false;
  std::size_t at = 3;
  if (parts[at].size() > 1 && parts[at][0] == 'S' && digits(parts[at].substr(1)))
    tile = parts[at++].substr(1);
  if (at >= parts.size() || !digits(parts[at]))
    return false;
  const std::int64_t n = std::stoll(parts[at]);
  const Family* family = find_family(parts[0]);
  const bool reads_k = family && std::any_of(family->variants.begin(), family->variants.end(),
                                             [](const Variant& v) { return v.reads(Param::k); });
  row = {{"family", parts[0]},
         {"variant", variant},
         {"precision", p},
         {"m", n},
         {"n", n},
         {"k", reads_k ? n : 0},
         {"tile", digits(tile) ? std::stoll(tile) : 0}};
  return true;
}

double number(const nlohmann::json& b, const char* key) {
  const auto it = b.find(key);
  return it != b.end() && it->is_number() ? it->get<double>() : 0.0;
}
std::string text(const nlohmann::json& o, const char* key) {
  const auto it = o.find(key);
  return it != o.end() && it->is_string() ? it->get<std::string>() : std::string();
}
} // namespace

bool is_bench_json(const nlohmann::json& doc) {
  return doc.is_object() && !doc.contains("results") && doc.contains("benchmarks") &&
         doc["benchmarks"].is_array();
}

nlohmann::json bench_as_results(const nlohmann::json& doc, const std::string& source) {
  const nlohmann::json ctx =
      doc.contains("context") && doc["context"].is_object() ? doc["context"] : nlohmann::json();
  const std::string backend = text(ctx, "miniapp_backend");
  // Each case's iteration times in file order (several with --benchmark_repetitions), and its
  // work per launch from the rate counters.
  std::vector<std::string> order;
  std::map<std::string, nlohmann::json> rows;
  double copy_gbs = 0;
  for (const auto& b : doc["benchmarks"]) {
    if (!b.is_object())
      throw std::runtime_error(source + ": a benchmark entry is not an object");
    if (text(b, "run_type") == "aggregate" || b.contains("error_occurred"))
      continue; // aggregates are recomputed from the repetitions; a failed case has no time
    nlohmann::json row;
    const std::string name = text(b, "run_name").empty() ? text(b, "name") : text(b, "run_name");
    const auto unit = kTimeUnit.find(text(b, "time_unit").empty() ? "ns" : text(b, "time_unit"));
    const double t = number(b, "real_time") * (unit == kTimeUnit.end() ? 0 : unit->second);
    if (name.rfind("ceiling/copy", 0) == 0) // the device's copy bandwidth: every row's ceiling
      copy_gbs = std::max(copy_gbs, number(b, "bytes/s") * 1e-9);
    if (!(case_row(name, row) || older_case_row(name, row)) || !(t > 0))
      continue;
    const std::string id = row.value("case_id", name); // an older name is its own key
    if (!rows.count(id)) {
      order.push_back(id);
      row["backend"] = backend;
      row["ranks"] = 1;
      row["status"] = "ok";
      // miniapp-bench validates each case once before timing it, except where it says not
      row["valid"] = text(b, "label").rfind("unvalidated", 0) == 0 ? "not_checked" : "true";
      // miniapp-bench's untimed launches before the timed ones (one, or a config's `warmup`),
      // and Google Benchmark's iterations
      row["warmup"] =
          text(ctx, "miniapp_warmup").empty() ? 1 : std::atoi(text(ctx, "miniapp_warmup").c_str());
      row["repetitions"] = number(b, "iterations");
      // the launches each iteration chained (core/timing.hpp); absent before samples were chained
      if (number(b, "launches_per_sample") > 0)
        row["launches_per_sample"] = std::int64_t(number(b, "launches_per_sample"));
      // what tiled_rb chose at launch (results' split_k and padded); absent for other variants
      if (number(b, "split_k") > 0) {
        row["split_k"] = std::int64_t(number(b, "split_k"));
        row["padded"] = number(b, "padded") > 0;
      }
      row["flops"] = number(b, "FLOP/s") * t;
      row["bytes"] = number(b, "bytes/s") * t;
      row["compute_times_s"] = nlohmann::json::array();
      // --miniapp-config: the ceiling the run attaches to the case, a counter (FLOP/s or
      // bytes/s) named in the label ("ceiling: L1 copy bandwidth, GB/s")
      const std::string label = text(b, "label");
      const auto at = label.find("ceiling: "), comma = label.rfind(", ");
      if (number(b, "ceiling") > 0 && at != std::string::npos && comma != std::string::npos &&
          comma > at) {
        row["ceiling"] = label.substr(at + 9, comma - at - 9);
        row["ceiling_value"] = number(b, "ceiling") * 1e-9;
        row["ceiling_unit"] = label.substr(comma + 2);
        if (number(b, "ceiling_high") > 0) { // an uncertain ceiling's range, as the run's
          row["ceiling_low"] = number(b, "ceiling_low") * 1e-9;
          row["ceiling_high"] = number(b, "ceiling_high") * 1e-9;
        }
      }
      rows[id] = row;
    }
    rows[id]["compute_times_s"].push_back(t);
    // the most other work beside any repetition's samples, the busy rule's (core/host_load.hpp);
    // absent in files of older builds
    if (const auto it = b.find("host_others"); it != b.end() && it->is_number())
      rows[id]["host_others"] =
          std::max(rows[id].value("host_others", 0.0), std::max(0.0, it->get<double>()));
  }
  nlohmann::json results = nlohmann::json::array();
  for (const auto& id : order) {
    nlohmann::json row = rows[id];
    std::vector<double> ts = row["compute_times_s"].get<std::vector<double>>();
    std::sort(ts.begin(), ts.end());
    const double median =
        ts.size() % 2 ? ts[ts.size() / 2] : 0.5 * (ts[ts.size() / 2 - 1] + ts[ts.size() / 2]);
    row["time_min_s"] = ts.front();
    row["time_max_s"] = ts.back();
    row["time_median_s"] = row["total_median_s"] = median;
    row["gflops"] = row["flops"].get<double>() / median * 1e-9;
    row["gbs"] = row["bytes"].get<double>() / median * 1e-9;
    if (copy_gbs > 0 && !row.contains("ceiling")) {
      row["ceiling"] = "copy bandwidth";
      row["ceiling_value"] = copy_gbs;
      row["ceiling_unit"] = "GB/s";
    }
    results.push_back(row);
  }
  if (results.empty())
    throw std::runtime_error(source + ": no miniapp kernel benchmarks (named by case id, as "
                                      "miniapp-bench names them, or as older builds did) in this "
                                      "Google Benchmark JSON");
  const int concurrency = std::atoi(text(ctx, "miniapp_concurrency").c_str());
  nlohmann::json metadata = {{"backend", backend},
                             {"device_name", text(ctx, "miniapp_device")},
                             {"host_name", text(ctx, "host_name")},
                             {"kokkos_version", text(ctx, "kokkos_version")},
                             {"start_time", text(ctx, "date")},
                             {"mpi_ranks", 1}};
  if (host_backend(backend) && concurrency > 0)
    metadata["threads_per_rank"] = concurrency;
  return {{"schema_version", 2},
          {"metadata", metadata},
          {"config", {{"name", "miniapp-bench"}}},
          {"results", results}};
}

} // namespace compare
} // namespace miniapp
