#pragma once
// `miniapp run --references FILE --db FILE` (issue 17), wired the same way for one rank or many:
// open() before any work, attach() to the writer, mark() each row before the writer adds it
// (its reference fields: results.csv and results.json columns), finish() after the writer's last
// write. The database records each results.json document as the writer writes it
// (ResultsWriter::before_write), so a row on disk is already in the database. The database is
// the one part of `miniapp run` that reaches history/: only run_extras.cpp includes it.
#include "app/commands.hpp"
#include "results/references.hpp"
#include "results/results_writer.hpp"

#include <memory>
#include <ostream>
#include <stdexcept>
#include <string>
#include <vector>

namespace miniapp {
namespace history {
class Database;
}

class RunExtras {
public:
  // --db's database could not be opened: `code` is kConfigError where the file is not a history
  // database, kRuntimeError where it cannot be opened or created.
  struct DbOpenError : std::runtime_error {
    DbOpenError(int exit_code, const std::string& what)
        : std::runtime_error(what), code(exit_code) {}
    int code;
  };
  RunExtras();
  ~RunExtras();
  // Loads the references and opens the database. Returns kOk, or the exit code after printing
  // why (a bad references file: kConfigError with file:line:col; a database that cannot be
  // opened: kRuntimeError naming it).
  int open(const RunArgs& args, const Plan& plan);
  // The same, throwing: config::ConfigError for a bad references file or --db with output.formats
  // without json, DbOpenError for the database (the multi-rank runner's phases catch them).
  void load(const RunArgs& args, const Plan& plan);
  // `metadata`: the run's results.json metadata (references match its backend and device).
  void attach(ResultsWriter& writer, const nlohmann::json& metadata);
  // Sets the row's reference fields (--references; else leaves them empty) and counts the rows
  // met and below.
  void mark(CaseResult& r, const Plan& plan);
  // After the writer's final write: records the directory's final results.json (so the database
  // ends as the directory does), prints the rows below their reference, and returns the exit code:
  // `code` when it is an error already (3, 4), else kBelowReference when a row is below, else
  // kRuntimeError when the database could not record the run, else `code`.
  int finish(const ResultsWriter& writer, int code, std::ostream& out, std::ostream& err);

private:
  void record(const nlohmann::json& doc, const std::string& dir);
  std::unique_ptr<references::References> refs_;
  std::unique_ptr<history::Database> db_;
  compare::Run run_; // the run's backend and device, no rows: what references are matched with
  int ranks_ = 1;
  std::vector<std::string> below_; // the rows below their reference, described
  int met_ = 0;
  std::string db_error_; // the first database failure
};

} // namespace miniapp
