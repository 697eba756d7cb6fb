#include "results/run_json.hpp"

#include "core/case_fields.hpp"

namespace miniapp {
namespace compare {

namespace {

// Zero of the type: what the writer has always written for a parameter a row has no value of.
nlohmann::json zero_of(FieldType t) {
  switch (t) {
  case FieldType::integer:
    return 0;
  case FieldType::number:
    return 0.0;
  case FieldType::boolean:
    return false;
  default:
    return "";
  }
}

// The inverse of compare_load.cpp's row_from: the same keys. The case parameters are the results
// columns of the case-field table (core/case_fields.hpp).
nlohmann::json row_json(const Row& r, const std::string& backend) {
  nlohmann::json row = {{"backend", backend},
                        {"warmup", r.warmup},
                        {"repetitions", r.repetitions},
                        {"status", r.status},
                        {"valid", r.valid == "true"    ? nlohmann::json(true)
                                  : r.valid == "false" ? nlohmann::json(false)
                                                       : nlohmann::json(r.valid)},
                        {"time_min_s", r.time_min},
                        {"time_median_s", r.time_median},
                        {"time_max_s", r.time_max},
                        {"total_median_s", r.total_median},
                        {"flops", r.flops},
                        {"bytes", r.bytes},
                        {"gflops", r.gflops},
                        {"gbs", r.gbs},
                        {"ceiling", r.ceiling},
                        {"ceiling_value", r.ceiling_value},
                        {"ceiling_unit", r.ceiling_unit},
                        {"ranks", r.ranks},
                        {"compute_times_s", r.compute_times},
                        {"h2d_times_s", r.h2d_times},
                        {"d2h_times_s", r.d2h_times}};
  for (const auto& f : case_fields())
    if (f.column) {
      const auto it = r.fields.find(f.name);
      row[f.name] = it == r.fields.end() || it->is_null() ? zero_of(f.type) : *it;
    }
  row["family"] = r.family;
  row["variant"] = r.variant;
  row["precision"] = r.precision;
  return row;
}

} // namespace

nlohmann::json to_results_json(const Run& run) {
  nlohmann::json meta = run.metadata.is_object() ? run.metadata : nlohmann::json::object();
  // What the Run knows wins where the metadata is silent (a results.csv has none).
  const auto fill = [&](const char* key, const nlohmann::json& value) {
    if (!meta.contains(key) || meta[key].is_null() || meta[key] == "")
      meta[key] = value;
  };
  fill("backend", run.backend);
  fill("device_name", run.device);
  fill("host_name", run.host);
  fill("config_hash", run.config_hash);
  fill("label", run.label());
  if (run.ranks > 0)
    fill("mpi_ranks", run.ranks);
  if (run.threads > 0)
    fill("threads_per_rank", run.threads);
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& r : run.rows)
    rows.push_back(row_json(r, run.backend));
  return {{"complete", run.complete},
          {"config", {{"name", run.experiment}}},
          {"metadata", meta},
          {"results", rows}};
}

} // namespace compare
} // namespace miniapp
