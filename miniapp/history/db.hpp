#pragma once
// The results history (issue 17): runs and their rows in an SQLite database, so one case can be
// followed across runs, machines and time, and runs selected for `miniapp compare`. The run
// directories stay the source of truth: the database is filled from their results.json documents
// (idempotently, a run keyed by its id: results/run_id.hpp) and can be rebuilt from them.
//
// Several processes may write at once: WAL journal (a rollback journal on a network filesystem:
// history/filesystem.hpp), a busy timeout, every write one IMMEDIATE transaction; a writer killed
// at any point leaves the last committed state. Schema: see the migrations in history_db.cpp and
// docs/history.md.
#include "results/run.hpp"
#include "history/filter.hpp"

#include <nlohmann/json.hpp>

#include <stdexcept>
#include <string>
#include <vector>

struct sqlite3;

namespace miniapp::history {

// Every message starts with the database's path.
struct DbError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The user's input is wrong (exit 2): a path that holds no run, a file that is not a
// results.json, or a database file that is not a miniapp history database this program can use
// (another program's SQLite file, a schema version out of range).
struct InputError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Commands that only read (history, compare --db, report --db) open the database read-only:
// nothing is created, migrated or switched to WAL, and no -wal/-shm file is left behind. Commands
// that write (db import, db rebuild, run --db) create a missing database and migrate an older one.
enum class Access { read_only, read_write };

// How long a writer waits for another's transaction before it gives up.
constexpr int kBusyTimeoutMs = 60000;

// The schema version this program writes (PRAGMA user_version); an older database is migrated.
int latest_schema_version();

// A resumed run (`miniapp run --resume DIR`) writes its results.json into the directory of the
// runs it resumed, with their kept rows: in the history it takes their place (they are removed),
// so each case of the directory is recorded once, under the run whose results.json holds it, as
// `db rebuild` from the directory would record it. A run that a recorded run resumed is not
// imported again (an old copy of its directory).
struct ImportResult {
  std::string run_id, source;
  int rows = 0;                      // rows in the document
  int changed = 0;                   // rows inserted or updated (0 when imported before as it is)
  bool run_changed = 0;              // the run was new, or its status or metadata changed
  std::vector<std::string> replaced; // the runs this resumed run took the place of
  std::string resumed_by;            // not imported: the recorded run that resumed this one
};

// One point of a case's history: one row of one run.
struct Point {
  std::string case_id, run_id, label, host, device, backend, start_time, unit, status, valid;
  double rate = 0;
  double pct_of_ceiling = -1; // < 0: no ceiling measured
  Marks marks;                // the row's (core/marks.hpp), from its row and its run's host CPUs
};

class Database {
public:
  // Opens the database for access (see Access). Throws InputError for a file that is not a
  // miniapp history database of a known schema version (before anything in it changes), DbError
  // for a database that cannot be opened (read_only: one that does not exist).
  Database(const std::string& path, Access access);
  ~Database();
  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;

  const std::string& path() const { return path_; }
  int schema_version();
  // One results.json document in one transaction: the run and every row upserted.
  ImportResult import_document(const nlohmann::json& doc, const std::string& source);
  // A run directory, or its results.json; a directory without results.json imports each of its
  // subdirectories that has one (docs/data/weak_scaling-h200x4). Throws InputError for a path
  // that holds no run, DbError when the database fails.
  std::vector<ImportResult> import_path(const std::string& path);
  // Empties the database and imports the paths, all in one transaction (a failure keeps the old
  // contents).
  std::vector<ImportResult> rebuild(const std::vector<std::string>& paths);

  std::vector<Point> history(const Filter& f);
  std::vector<compare::Run> select_runs(const Filter& f);

private:
  ImportResult import_unlocked(const nlohmann::json& doc, const std::string& source);
  std::vector<Point> history_unlocked(const Filter& f);
  std::vector<compare::Run> select_runs_unlocked(const Filter& f);
  std::vector<ImportResult> import_path_unlocked(const std::string& path);
  template <class F>
  auto in_transaction(const std::string& what, F&& f) -> decltype(f());
  template <class F>
  auto read(F&& f) -> decltype(f());
  void open(const std::string& name, int flags);
  void open_for_reading(bool may_be_immutable);
  void open_for_writing();
  int check_schema(bool may_be_new);
  bool unchanged_since_open() const;
  void close();
  void exec(const std::string& sql);
  [[noreturn]] void fail(const std::string& what);
  friend class Transaction;
  sqlite3* db_ = nullptr;
  std::string path_;
  bool immutable_ = false;   // opened without locks (open_for_reading says when)
  std::string opened_state_; // the file as it was when opened immutable
};

// The runs the filter selects, oldest first, each as `miniapp compare` loads a run directory
// (compare::run_from_json of the stored document), with only the cases the filter names.
std::vector<compare::Run> select_runs(Database& db, const Filter& filter);

} // namespace miniapp::history
