#include "app/run_extras.hpp"

#include "config/yaml_strict.hpp"
#include "history/db.hpp"

#include <algorithm>
#include <iostream>

namespace miniapp {

RunExtras::RunExtras() = default;
RunExtras::~RunExtras() = default;

void RunExtras::load(const RunArgs& args, const Plan& plan) {
  const auto& formats = plan.settings.formats;
  if (!args.db.empty() && std::find(formats.begin(), formats.end(), "json") == formats.end())
    throw config::ConfigError("miniapp run: --db records results.json: add json to "
                              "output.formats");
  if (!args.references.empty())
    refs_ = std::make_unique<references::References>(references::load_references(args.references));
  if (args.db.empty())
    return;
  try {
    db_ = std::make_unique<history::Database>(args.db, history::Access::read_write);
  } catch (const history::InputError& e) { // --db names a file that is not a history database
    throw DbOpenError(kConfigError, e.what());
  } catch (const history::DbError& e) {
    throw DbOpenError(kRuntimeError, e.what());
  }
}

int RunExtras::open(const RunArgs& args, const Plan& plan) {
  try {
    load(args, plan);
  } catch (const config::ConfigError& e) {
    std::cerr << e.what() << std::endl;
    return kConfigError;
  } catch (const std::exception& e) {
    std::cerr << "miniapp: rank 0: " << e.what() << " (resource: history database)\n";
    return kRuntimeError;
  }
  return kOk;
}

void RunExtras::attach(ResultsWriter& writer, const nlohmann::json& metadata) {
  run_ = compare::run_from_json({{"metadata", metadata}, {"results", nlohmann::json::array()}},
                                writer.directory());
  ranks_ = metadata.value("mpi_ranks", 1);
  if (!db_)
    return;
  const std::string dir = writer.directory();
  writer.before_write = [this, dir](nlohmann::json& doc) { record(doc, dir); };
}

void RunExtras::mark(CaseResult& r, const Plan& plan) {
  if (!refs_)
    return;
  // The row as a results file holds it, so a run is checked exactly as `compare --references`
  // checks it later.
  const compare::Run one = compare::run_from_json(
      {{"results", nlohmann::json::array({result_json(r, {plan, ranks_})})}}, run_.source);
  const compare::Row& row = one.rows.at(0);
  const references::Check c = references::check(*refs_, run_, row);
  r.reference_status = references::to_string(c.status);
  r.reference_unit = c.ref ? c.unit : "";
  r.reference = c.ref ? c.expected : 0;
  if (c.status == references::Status::below)
    below_.push_back(references::describe(c, references::case_id(row)));
  met_ += c.status == references::Status::met;
}

void RunExtras::record(const nlohmann::json& doc, const std::string& dir) {
  if (!db_error_.empty())
    return;
  try {
    db_->import_document(doc, dir);
  } catch (const std::exception& e) {
    // The directory keeps every row; `miniapp db import DIR` adds them later.
    db_error_ = e.what();
    std::cerr << "miniapp: rank 0: " << db_error_
              << " (resource: history database); the run goes on, `miniapp db import --db "
              << db_->path() << " " << dir << "` records it later\n";
  }
}

int RunExtras::finish(const ResultsWriter& writer, int code, std::ostream& out, std::ostream& err) {
  if (db_ && db_error_.empty()) {
    try {
      db_->import_path(writer.directory()); // the final status as the directory has it
    } catch (const std::exception& e) {
      db_error_ = e.what();
      err << "miniapp: rank 0: " << db_error_ << " (resource: history database)\n";
    }
  }
  if (refs_) {
    out << "references (" << refs_->file << "): " << met_ << " row(s) met, " << below_.size()
        << " below\n";
    for (const auto& b : below_)
      out << "  BELOW " << b << "\n";
    if (!below_.empty())
      err << "miniapp: " << below_.size() << " row(s) below their reference (" << refs_->file
          << "); marked reference_status \"below\" in " << writer.directory()
          << "/results.csv and results.json\n";
  }
  if (code != kOk)
    return code;
  if (!below_.empty())
    return kBelowReference;
  return db_error_.empty() ? code : kRuntimeError;
}

} // namespace miniapp
