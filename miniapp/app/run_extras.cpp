#include "app/run_extras.hpp"

#include "config/yaml_strict.hpp"

#include <algorithm>
#include <iostream>

namespace miniapp {

void RunExtras::load(const RunArgs& args, const Plan& plan) {
  const auto& formats = plan.settings.formats;
  if ((!args.references.empty() || !args.db.empty()) &&
      std::find(formats.begin(), formats.end(), "json") == formats.end())
    throw config::ConfigError("miniapp run: --references and --db work on results.json: add json "
                              "to output.formats");
  if (!args.references.empty())
    refs_ = std::make_unique<references::References>(references::load_references(args.references));
  if (!args.db.empty())
    db_ = std::make_unique<history::Database>(args.db);
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

void RunExtras::attach(ResultsWriter& writer) {
  if (!refs_ && !db_)
    return;
  const std::string dir = writer.directory();
  writer.before_write = [this, dir](nlohmann::json& doc) { on_document(doc, dir); };
}

void RunExtras::on_document(nlohmann::json& doc, const std::string& dir) {
  if (refs_) {
    const compare::Run run = compare::run_from_json(doc, dir);
    below_.clear();
    met_ = 0;
    auto& rows = doc["results"];
    for (std::size_t i = 0; i < rows.size() && i < run.rows.size(); ++i) {
      const references::Check c = references::check(*refs_, run, run.rows[i]);
      rows[i]["reference"] = c.ref ? nlohmann::json(c.expected) : nlohmann::json();
      rows[i]["reference_unit"] = c.ref ? nlohmann::json(c.unit) : nlohmann::json();
      rows[i]["reference_status"] = references::to_string(c.status);
      if (c.status == references::Status::below)
        below_.push_back(references::describe(c, references::case_id(run.rows[i])));
      met_ += c.status == references::Status::met;
    }
  }
  if (db_ && db_error_.empty()) {
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
          << "); marked reference_status \"below\" in " << writer.directory() << "/results.json\n";
  }
  if (code != kOk)
    return code;
  if (!below_.empty())
    return kBelowReference;
  return db_error_.empty() ? code : kRuntimeError;
}

} // namespace miniapp
