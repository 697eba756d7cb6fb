#include "run/calibration_store.hpp"

#include "core/device_info.hpp"
#include "core/files.hpp"
#include "core/state_file.hpp"
#include "core/sinks.hpp"
#include "run/case_medians.hpp"
#include "run/ceiling_cache.hpp"

#include <nlohmann/json.hpp>

#include <cmath>
#include <filesystem>
#include <iostream>
#include <set>
#include <optional>
#include <system_error>
#include <thread>

namespace miniapp {

namespace {

namespace fs = std::filesystem;

// Each field with the most a measurement can give: an hour of start-up or of one ceiling, the
// fastest rates of any node by a factor of ten, a run 1000x slower than its estimate.
struct Field {
  const char* name;
  double RunRecord::*member;
  double most;
};
constexpr Field kFields[] = {
    {"start_s", &RunRecord::start_s, 3600},
    {"case_s", &RunRecord::case_s, 3600},
    {"setup_gbs", &RunRecord::setup_gbs, 1e5},
    {"reference_gflops", &RunRecord::reference_gflops, 1e6},
    {"gbs", &RunRecord::gbs, 1e5},
    {"gflops", &RunRecord::gflops, 1e7},
    {"ceiling_s", &RunRecord::ceiling_s, 3600},
    {"error", &RunRecord::error, 1000},
};

// The file as an object; a damaged one (a key given twice, not JSON, a FIFO, a link...) reads as
// empty, said once a path (it is read for each estimate): the estimates then come from the model
// and the next run rewrites the file. Read silently as empty, a file with a key given twice once
// made every estimate fall back to the model with no word of why.
nlohmann::json load_file(const std::string& path) {
  std::string why;
  // {machine: [record, ...], "case medians": {machine: [[id, seconds, busy], ...]}}: 4 levels.
  nlohmann::json j = read_state_json(path, kCalibrationFileBytes, 4, &why);
  if (j.is_object())
    return j;
  static std::set<std::string> warned;
  if (!(j.is_null() && why.empty()) && warned.insert(path).second)
    std::cerr << "miniapp: warning: " << for_terminal(path) << ": "
              << (why.empty() ? "not a JSON object" : why)
              << "; the time estimates' calibration is read as empty (estimates from the model) "
                 "and rewritten by the next run"
              << std::endl;
  return nlohmann::json::object();
}

std::optional<RunRecord> record_of(const nlohmann::json& j) {
  if (!j.is_object())
    return std::nullopt;
  RunRecord r;
  for (const Field& f : kFields) {
    const auto v = j.find(f.name);
    if (v == j.end() || !v->is_number())
      return std::nullopt;
    const double x = v->get<double>();
    if (!std::isfinite(x) || x < 0 || x > f.most)
      return std::nullopt;
    r.*f.member = x;
  }
  const auto busy = j.find("busy");
  if (busy == j.end() || !busy->is_boolean())
    return std::nullopt;
  r.busy = busy->get<bool>();
  return r;
}

nlohmann::json json_of(const RunRecord& r) {
  nlohmann::json j = nlohmann::json::object();
  for (const Field& f : kFields)
    j[f.name] = std::isfinite(r.*f.member) ? std::clamp(r.*f.member, 0.0, f.most) : 0.0;
  j["busy"] = r.busy;
  return j;
}

nlohmann::json json_of(const std::vector<RunRecord>& records) {
  nlohmann::json runs = nlohmann::json::array();
  for (const RunRecord& r : records)
    runs.push_back(json_of(r));
  return runs;
}

// The last kCalibrationRuns records stored for `key` that read as records, oldest first.
std::vector<RunRecord> records_of(const nlohmann::json& file, const std::string& key) {
  const auto runs = file.find(key);
  std::vector<RunRecord> out;
  if (runs == file.end() || !runs->is_array())
    return out;
  const std::size_t n = runs->size();
  for (std::size_t i = n > kCalibrationRuns ? n - kCalibrationRuns : 0; i < n; ++i)
    if (auto r = record_of((*runs)[i]))
      out.push_back(*r);
  return out;
}

} // namespace

std::string calibration_path() {
  return (fs::path(ceiling_cache_path()).parent_path() / "estimates.json").string();
}

// GCC defines __SANITIZE_ADDRESS__ / __SANITIZE_THREAD__; clang answers __has_feature.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define MINIAPP_SANITIZED_BUILD 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define MINIAPP_SANITIZED_BUILD 1
#endif
#endif

std::string build_flavour_suffix() {
#if defined(MINIAPP_SANITIZED_BUILD)
  return "|build=sanitized";
#elif !defined(__OPTIMIZE__)
  return "|build=unoptimized";
#else
  return "";
#endif
}

std::string calibration_machine_key(const std::string& backend) {
  return host_name() + "|" + backend +
         "|cpus=" + std::to_string(std::thread::hardware_concurrency()) + build_flavour_suffix();
}

std::vector<RunRecord> load_calibration(const std::string& path, const std::string& key) {
  return records_of(load_file(path), key);
}

std::map<std::string, double> load_case_medians(const std::string& path, const std::string& key) {
  std::map<std::string, double> out;
  for (const CaseMedian& m : medians_of(load_file(path), key))
    out[m.id] = m.seconds;
  return out;
}

bool store_calibration(const std::string& path, const std::string& key, const RunRecord& record,
                       const std::vector<CaseMedian>& cases) {
  const nlohmann::json old = load_file(path);
  nlohmann::json j = nlohmann::json::object();
  // Every machine's records and kernel times as they read back (typed, in range), so the file
  // written holds nothing it would not read back.
  for (auto it = old.begin(); it != old.end() && j.size() + 1 < kCalibrationMachines; ++it)
    if (it.key() != key && it.key() != kCaseMediansKey && it.key().size() <= 1024)
      if (nlohmann::json runs = json_of(records_of(old, it.key())); !runs.empty())
        j[it.key()] = runs;
  std::vector<RunRecord> runs = records_of(old, key);
  runs.push_back(record);
  if (runs.size() > kCalibrationRuns)
    runs.erase(runs.begin(), runs.end() - kCalibrationRuns);
  j[key] = json_of(runs);
  j[kCaseMediansKey] = case_medians_json(old, key, cases);
  try {
    make_dirs(fs::path(path).parent_path().string());
    write_file_atomically(path,
                          j.dump(1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
  } catch (const std::exception&) {
    return false;
  }
  return true;
}

} // namespace miniapp
