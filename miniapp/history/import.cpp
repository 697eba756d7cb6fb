// Database's import of results.json documents (history/db.hpp): a run and its rows
// upserted, keyed by the run's id, so importing again changes nothing.
#include "history/db.hpp"
#include "results/metadata.hpp"

#include "core/files.hpp"
#include "results/references.hpp"
#include "results/run_id.hpp"
#include "history/sqlite.hpp"

#include <algorithm>
#include <cmath>
#include <dirent.h>

namespace miniapp::history {

using sqlite::Statement;

namespace {

std::string text_of(const nlohmann::json& o, const char* key) {
  if (!o.is_object())
    return "";
  const auto it = o.find(key);
  if (it == o.end() || it->is_null())
    return "";
  if (it->is_string())
    return it->get<std::string>();
  return it->dump();
}
long long int_of(const nlohmann::json& o, const char* key, long long fallback) {
  if (!o.is_object())
    return fallback;
  const auto it = o.find(key);
  if (it == o.end() || !it->is_number())
    return fallback;
  const double v = it->get<double>();
  return std::fabs(v) < 1e15 ? std::llround(v) : fallback; // llround of 1e300 is undefined
}

// The ids of the runs a resumed run's results.json names (metadata.resumed, docs/jobs.md).
std::vector<std::string> resumed_run_ids(const nlohmann::json& meta) {
  std::vector<std::string> ids;
  if (meta.is_object() && meta.contains("resumed") && meta["resumed"].is_array())
    for (const auto& earlier : meta["resumed"])
      if (const std::string id = text_of(earlier, "run_id"); !id.empty())
        ids.push_back(id);
  return ids;
}

// The recorded run that resumed `run_id` ("" when none). Only runs whose metadata names the id
// are read, with the limits of a results file (the database is an input file too).
std::string resumed_by(sqlite3* db, const std::string& db_path, const std::string& run_id) {
  Statement s(db, "SELECT run_id, metadata_json FROM runs "
                  "WHERE run_id <> ?1 AND instr(metadata_json, ?1) > 0 ORDER BY run_id");
  s.bind(1, run_id);
  while (s.step()) {
    nlohmann::json meta;
    try {
      meta = compare::parse_results_text(s.text(1),
                                         db_path + " (run " + s.text(0) + ", metadata_json)");
    } catch (const std::runtime_error& e) {
      throw InputError(e.what());
    }
    const auto ids = resumed_run_ids(meta);
    if (std::find(ids.begin(), ids.end(), run_id) != ids.end())
      return s.text(0);
  }
  return "";
}

nlohmann::json read_document(const std::string& file) {
  try {
    return compare::read_results_json(file);
  } catch (const std::runtime_error& e) {
    throw InputError(e.what());
  }
}

} // namespace

ImportResult Database::import_unlocked(const nlohmann::json& doc, const std::string& source) {
  // The same reader as `miniapp compare`: a run imported is the run compare would see.
  compare::Run run;
  try {
    run = compare::run_from_json(doc, source);
  } catch (const std::runtime_error& e) {
    throw InputError(e.what());
  } catch (const nlohmann::json::exception& e) { // a value of the wrong type: the file is wrong
    throw InputError(source + ": " + e.what() + "; not a miniapp results.json");
  }
  const nlohmann::json& meta = doc.contains("metadata") ? doc["metadata"] : nlohmann::json();
  const auto& rows = doc["results"];
  // Each row is keyed by its case (the position in the plan; without one, the row's position):
  // rows sharing a key would overwrite each other, so such a document is refused, not partly kept.
  std::vector<long long> keys;
  std::map<long long, std::size_t> row_of_key;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (!rows[i].is_object())
      throw InputError(source + ": a results row is not a JSON object; not a miniapp results.json");
    keys.push_back(int_of(rows[i], "case", static_cast<long long>(i)));
    const auto [first, unique] = row_of_key.emplace(keys.back(), i);
    if (!unique)
      throw InputError(source + ": results rows " + std::to_string(first->second + 1) + " and " +
                       std::to_string(i + 1) + " are both case " + std::to_string(keys.back()) +
                       "; a miniapp results.json has one row per case");
  }
  ImportResult result;
  result.run_id = run_id_of(doc);
  result.source = source;
  // Each case once (history_db.hpp, ImportResult): an older state of a resumed directory adds
  // nothing; a resumed run's document replaces the runs it resumed.
  result.resumed_by = resumed_by(db_, path_, result.run_id);
  if (!result.resumed_by.empty()) {
    result.rows = int(rows.size());
    return result;
  }
  Statement remove_run(db_, "DELETE FROM runs WHERE run_id = ?1"); // its rows cascade
  for (const std::string& earlier : resumed_run_ids(meta)) {
    if (earlier == result.run_id)
      continue;
    remove_run.reset();
    remove_run.bind(1, earlier);
    remove_run.step();
    if (sqlite3_changes(db_) > 0)
      result.replaced.push_back(earlier);
  }
  const std::string status = doc.contains("status") && doc["status"].is_string()
                                 ? doc["status"].get<std::string>()
                                 : (run.complete ? "complete" : "incomplete");
  Statement upsert_run(db_, R"sql(
INSERT INTO runs (run_id, label, backend, device, host, ranks, threads, kokkos_version,
                  config_hash, experiment, start_time, end_time, status, complete, source,
                  metadata_json)
VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16)
ON CONFLICT (run_id) DO UPDATE SET
  label = excluded.label, backend = excluded.backend, device = excluded.device,
  host = excluded.host, ranks = excluded.ranks, threads = excluded.threads,
  kokkos_version = excluded.kokkos_version, config_hash = excluded.config_hash,
  experiment = excluded.experiment, start_time = excluded.start_time,
  end_time = excluded.end_time, status = excluded.status, complete = excluded.complete,
  metadata_json = excluded.metadata_json
WHERE runs.metadata_json IS NOT excluded.metadata_json OR runs.status IS NOT excluded.status
   OR runs.complete IS NOT excluded.complete OR runs.label IS NOT excluded.label
   OR runs.experiment IS NOT excluded.experiment)sql");
  upsert_run.bind(1, result.run_id)
      .bind(2, run.label())
      .bind(3, run.backend)
      .bind(4, run.device)
      .bind(5, run.host)
      .bind(6, static_cast<long long>(run.ranks))
      .bind(7, static_cast<long long>(run.threads))
      .bind(8, text_of(meta, "kokkos_version"))
      .bind(9, run.config_hash)
      .bind(10, run.experiment)
      .bind(11, text_of(meta, "start_time"))
      .bind(12, text_of(meta, "end_time"))
      .bind(13, status)
      .bind(14, static_cast<long long>(run.complete ? 1 : 0))
      .bind(15, source)
      .bind(16, json_text(meta));
  upsert_run.step();
  result.run_changed = sqlite3_changes(db_) > 0;

  Statement upsert_row(db_, R"sql(
INSERT INTO rows (run_id, case_index, case_id, family, variant, precision, m, n, k, tile, rate,
                  unit, pct_of_ceiling, status, valid, time_min_s, time_median_s, time_max_s,
                  total_median_s, row_json)
VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20)
ON CONFLICT (run_id, case_index) DO UPDATE SET
  case_id = excluded.case_id, family = excluded.family, variant = excluded.variant,
  precision = excluded.precision, m = excluded.m, n = excluded.n, k = excluded.k,
  tile = excluded.tile, rate = excluded.rate, unit = excluded.unit,
  pct_of_ceiling = excluded.pct_of_ceiling, status = excluded.status, valid = excluded.valid,
  time_min_s = excluded.time_min_s, time_median_s = excluded.time_median_s,
  time_max_s = excluded.time_max_s, total_median_s = excluded.total_median_s,
  row_json = excluded.row_json
WHERE rows.row_json IS NOT excluded.row_json)sql");
  for (std::size_t i = 0; i < rows.size() && i < run.rows.size(); ++i) {
    const compare::Row& r = run.rows[i];
    const std::string unit = references::row_unit(r.family);
    const double pct = references::pct_of_ceiling(r);
    upsert_row.reset();
    upsert_row.bind(1, result.run_id)
        .bind(2, keys[i])
        .bind(3, references::case_id(r))
        .bind(4, r.family)
        .bind(5, r.variant)
        .bind(6, r.precision)
        .bind(7, static_cast<long long>(r.integer("m")))
        .bind(8, static_cast<long long>(r.integer("n")))
        .bind(9, static_cast<long long>(r.integer("k")))
        .bind(10, static_cast<long long>(r.integer("tile")))
        .bind(11, unit == "GFLOP/s" ? r.gflops : r.gbs)
        .bind(12, unit)
        .bind(13, pct >= 0 ? pct : NAN)
        .bind(14, r.status)
        .bind(15, r.valid)
        .bind(16, r.time_min)
        .bind(17, r.time_median)
        .bind(18, r.time_max)
        .bind(19, r.total_median)
        .bind(20, json_text(rows[i]));
    upsert_row.step();
    result.changed += sqlite3_changes(db_);
    ++result.rows;
  }
  return result;
}

std::vector<ImportResult> Database::import_path_unlocked(const std::string& path) {
  std::string p = path;
  while (p.size() > 1 && p.back() == '/')
    p.pop_back();
  std::vector<ImportResult> out;
  // A results.json that is there but not a regular file (a FIFO, a device) is read all the same:
  // the strict reader refuses it unread, naming it, where passing it over said "no results.json".
  if (is_dir(p) && !path_exists(p + "/results.json")) {
    // A directory of runs (docs/data/weak_scaling-h200x4): each subdirectory with results.json.
    std::vector<std::string> subdirs;
    if (auto* d = ::opendir(p.c_str())) {
      while (const dirent* e = ::readdir(d)) {
        const std::string name = e->d_name;
        if (name != "." && name != ".." && path_exists(p + "/" + name + "/results.json"))
          subdirs.push_back(p + "/" + name);
      }
      ::closedir(d);
    }
    if (subdirs.empty())
      throw InputError(p + ": no results.json here or in its subdirectories (the "
                           "history keeps results.json documents)");
    std::sort(subdirs.begin(), subdirs.end());
    for (const auto& s : subdirs)
      out.push_back(import_unlocked(read_document(s + "/results.json"), s));
    return out;
  }
  const std::string file = is_dir(p) ? p + "/results.json" : p;
  if (!path_exists(file))
    throw InputError(p + ": no such run directory or results.json");
  out.push_back(import_unlocked(read_document(file), p));
  return out;
}

} // namespace miniapp::history
