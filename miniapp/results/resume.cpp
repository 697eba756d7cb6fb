#include "results/resume.hpp"

#include "config/value.hpp"
#include "core/device_info.hpp"
#include "core/files.hpp"
#include "core/process.hpp"
#include "plan/config_hash.hpp"
#include "results/run.hpp" // read_results_json: the checked parse of a results.json
#include "results/metadata.hpp"
#include "results/result_fields.hpp"
#include "run/ceiling_cache.hpp" // kMostCeiling: more than any rate a measurement gives
#include "core/case_fields.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>

namespace miniapp {

namespace {

using nlohmann::json;

[[noreturn]] void refuse(const std::string& sentence) {
  throw config::ConfigError("miniapp run --resume: " + sentence);
}

std::string text_of(const json& v) {
  return v.is_string() ? v.get<std::string>() : v.dump();
}

// The first place where two expanded configs differ, for the refusal ("cases/2/n: 256 there, 512
// here"); "" when only keys outside the hash differ.
std::string first_difference(const json& there, const json& here) {
  for (const auto& op : json::diff(there, here)) {
    const std::string path = op.value("path", "");
    std::string key = path.substr(path.empty() ? 0 : 1); // "/mpi/transport" -> "mpi.transport"
    std::replace(key.begin(), key.end(), '/', '.');
    if (outside_config_hash(key))
      continue; // not part of the experiment (plan/config_hash.hpp)
    const json::json_pointer ptr(path);
    const std::string was = there.contains(ptr) ? text_of(there[ptr]) : "nothing";
    const std::string is = here.contains(ptr) ? text_of(here[ptr]) : "nothing";
    return "config" + path + " is " + was + " there and " + is + " here";
  }
  return "";
}

// A value of `doc` at `key` in the JSON type `want` (a default where absent); any other type
// refuses the file, naming it: a value the writer never writes is a damaged or edited file, and
// the JSON library's own type error named neither the file nor the key (exit 3).
template <class T>
T field_of(const json& doc, const char* key, const T& absent, json::value_t want,
           const std::string& path, const std::string& where) {
  const auto it = doc.find(key);
  if (it == doc.end())
    return absent;
  // (nlohmann types non-negative integers as number_unsigned)
  if (want == json::value_t::number_integer ? !it->is_number_integer() : it->type() != want)
    refuse(path + ": " + where + key + " is " + std::string(it->type_name()) + " " +
           it->dump().substr(0, 40) + ", not " +
           (want == json::value_t::string ? "a string" : "an integer"));
  return it->get<T>();
}

// Whether a row's value has the type its results column is written with (null: not applicable).
bool written_as(FieldType t, const std::string& name, const json& v) {
  if (v.is_null())
    return true;
  switch (t) {
  case FieldType::text: // "valid" is true, false or "not_checked"
    return v.is_string() || (name == "valid" && v.is_boolean());
  case FieldType::boolean:
    return v.is_boolean();
  case FieldType::integer:
    return v.is_number_integer();
  case FieldType::number:
    return v.is_number();
  case FieldType::number_list:
    return v.is_array() &&
           std::all_of(v.begin(), v.end(), [](const json& x) { return x.is_number(); });
  }
  return false;
}

// "" when the row is one this run writes for the case at its position: every column present and
// typed as written, and the case's parameters those of the plan's case (a precision or size
// contradicting the row's case id, or a row cut down to its status, would be kept and later shown
// as another case or as 0x0); else what is wrong.
std::string row_mismatch(const json& row, const Case& c) {
  for (const ResultField& f : result_fields()) {
    const auto it = row.find(f.name);
    if (it == row.end())
      return "has no " + f.name;
    if (!written_as(f.type, f.name, *it))
      return "has " + f.name + " " + it->dump().substr(0, 40) + " (not its type)";
  }
  // A figure no measurement gives (an edited 1e300 GB/s) was kept, the row valid in the run.
  for (const char* name : {"gbs", "gflops", "ceiling_value", "pct_of_ceiling", "time_median_s"}) {
    const json& v = row[name];
    if (v.is_number() && !(std::isfinite(v.get<double>()) && v.get<double>() >= 0 &&
                           v.get<double>() <= kMostCeiling))
      return "has " + std::string(name) + " " + v.dump().substr(0, 40) +
             ", a figure no measurement gives";
  }
  for (const CaseField& p : case_fields()) {
    // (a searched value is the search's choice, not the plan's 'auto')
    if (!p.column || p.takes_auto)
      continue;
    if (const json expected = case_value(p, c); row[p.name] != expected)
      return "has " + std::string(p.name) + " " + row[p.name].dump().substr(0, 40) +
             " where its case has " + expected.dump();
  }
  return "";
}

// What results.json keeps of a run before this one (the metadata's main facts).
json earlier_run(const json& doc) {
  json run = {{"status", doc.value("status", "")},
              {"cases_completed", doc.value("cases_completed", json())}};
  const json& md = doc["metadata"];
  for (const char* key :
       {"run_id", "start_time", "end_time", "host_name", "slurm_job_id", "command_line"})
    if (md.contains(key))
      run[key] = md[key];
  return run;
}

// A run whose results.json says "running" and whose process (metadata.process: id and start
// time) still runs on this host is writing the directory now: resuming it would run its remaining
// cases a second time beside it, both writing the same files. A run that ended without marking its
// status (SIGKILL, a lost node) is resumed; one on another host cannot be asked.
void refuse_a_running_run(const json& doc, const std::string& dir) {
  const auto status = doc.find("status");
  const json& md = doc["metadata"];
  const auto host = md.find("host_name");
  const auto process = md.find("process");
  if (status == doc.end() || *status != "running" || host == md.end() || *host != host_name() ||
      process == md.end() || !process->is_object())
    return;
  const auto pid = process->find("pid"), start = process->find("start_ticks");
  if (pid == process->end() || !pid->is_number_unsigned() || start == process->end() ||
      !start->is_number_unsigned())
    return;
  if (process_running(pid->get<long>(), start->get<std::uint64_t>()))
    refuse(dir + " is being written by a run still going (process " +
           std::to_string(pid->get<long>()) +
           " on this host): resuming it now would run its remaining cases twice; wait for it to "
           "end, or stop it (it stops after its current case and can then be resumed)");
}

} // namespace

ResumeState read_resume_state(const std::string& dir_arg, const Plan& plan, int ranks, int rounds) {
  ResumeState state;
  state.active = true;
  state.dir = dir_arg;
  while (state.dir.size() > 1 && state.dir.back() == '/')
    state.dir.pop_back();
  const std::string path = state.dir + "/results.json";
  if (!is_dir(state.dir))
    refuse(state.dir + " is not a directory (give the results directory of an earlier run)");
  // One that is there but not a regular file (a FIFO) is refused by the strict reader, named.
  if (!path_exists(path))
    refuse(state.dir + " is not a results directory: it has no results.json");
  json doc;
  try {
    doc = compare::read_results_json(path);
  } catch (const std::exception& e) {
    refuse(e.what());
  }
  if (!doc.is_object() || !doc.contains("metadata") || !doc["metadata"].is_object() ||
      !doc.contains("results") || !doc["results"].is_array() || !doc.contains("config"))
    refuse(path + " is not a results.json of miniapp run (no metadata, config or results)");
  refuse_a_running_run(doc, state.dir);
  using vt = json::value_t;
  const long long version =
      field_of<long long>(doc, "schema_version", 0, vt::number_integer, path, "");
  field_of<std::string>(doc, "status", "", vt::string, path, "");
  if (version != kResultsSchemaVersion)
    refuse(path + " has schema_version " + text_of(doc.value("schema_version", json())) +
           "; resuming needs a results.json of schema_version " +
           std::to_string(kResultsSchemaVersion) + " (this miniapp's)");
  const json& md = doc["metadata"];
  const std::string hash =
      field_of<std::string>(md, "config_hash", "", vt::string, path, "metadata.");
  if (hash != plan.config_hash) {
    const std::string where = first_difference(doc["config"], plan_to_json(plan));
    refuse(state.dir + " holds another experiment: its config hash is " + hash + ", this config's" +
           " (with its --set items) is " + plan.config_hash +
           (where.empty() ? "" : " (" + where + ")") +
           "; resume with the config and --set items of that run");
  }
  if (const long long there =
          field_of<long long>(md, "mpi_ranks", 1, vt::number_integer, path, "metadata.");
      there != ranks)
    refuse(state.dir + " holds rows of " + std::to_string(there) + " rank(s) and this run has " +
           std::to_string(ranks) + "; resume with " + std::to_string(there) + " rank(s)");

  std::map<std::size_t, json> kept; // by plan position: each case once
  for (const json& row : doc["results"]) {
    if (!row.is_object() || !row.contains("case") || !row["case"].is_number_integer())
      refuse(path + " has a row without its case position (\"case\")");
    const long long at = row["case"].get<long long>();
    const std::string where = "row of case " + std::to_string(at) + ": ";
    const std::string id = field_of<std::string>(row, "case_id", "", vt::string, path, where);
    if (at < 0 || std::size_t(at) >= plan.cases.size() || id != plan.cases[std::size_t(at)].id())
      refuse(path + " has a row for case " + std::to_string(at) + " (" +
             text_of(row.value("case_id", json())) + ") that is not this plan's case " +
             std::to_string(at));
    if (const std::string wrong = row_mismatch(row, plan.cases[std::size_t(at)]); !wrong.empty())
      refuse(path + "'s " + where + "the row " + wrong + "; it is not a row miniapp run wrote " +
             "for this case (resume from an unedited results directory)");
    const std::string status = row["status"].is_string() ? row["status"].get<std::string>() : "";
    // ok with valid false contradicts itself: not kept, as an invalid row is not.
    const bool failed_check = row["valid"].is_boolean() && !row["valid"].get<bool>();
    if ((status != "ok" && status != "unsupported") || failed_check)
      continue; // failed (invalid, error): runs again
    const json& row_rounds = row["rounds"];
    if (status == "ok" &&
        (row_rounds.is_number_integer() ? row_rounds.get<long long>() : 1) != rounds)
      refuse(state.dir + "'s rows pool " + text_of(row.value("rounds", json())) +
             " round(s) and this run has --rounds " + std::to_string(rounds) +
             "; resume with the same --rounds");
    kept.emplace(std::size_t(at), row);
  }
  for (std::size_t i = 0; i < plan.cases.size(); ++i)
    if (!kept.count(i))
      state.to_run.push_back(i);
  for (auto& [at, row] : kept)
    state.kept.push_back(std::move(row));
  state.earlier_status = doc.value("status", "");
  state.earlier_runs =
      md.contains("resumed") && md["resumed"].is_array() ? md["resumed"] : json::array();
  state.earlier_runs.push_back(earlier_run(doc));
  return state;
}

Plan plan_to_resume(const Plan& plan, const ResumeState& state) {
  if (!state.active)
    return plan;
  Plan sub = plan;
  sub.cases.clear();
  for (const std::size_t i : state.to_run)
    sub.cases.push_back(plan.cases.at(i));
  return sub;
}

std::string positions_text(const std::vector<std::size_t>& positions) {
  std::string out;
  for (const std::size_t p : positions)
    out += (out.empty() ? "" : ",") + std::to_string(p);
  return out;
}

std::vector<std::size_t> positions_from_text(const std::string& text) {
  std::vector<std::size_t> out;
  std::stringstream ss(text);
  for (std::string item; std::getline(ss, item, ',');)
    if (!item.empty())
      out.push_back(std::stoul(item));
  return out;
}

} // namespace miniapp
