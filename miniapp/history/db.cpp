#include "history/db.hpp"

#include "core/files.hpp"
#include "core/input_file.hpp"
#include "core/natural_order.hpp"

#include "results/references.hpp"
#include "history/filesystem.hpp"
#include "history/sqlite.hpp"
#include "run/stop_signals.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <map>
#include <sys/stat.h>
#include <unistd.h>

namespace miniapp::history {

using sqlite::file_state;
using sqlite::read_only_uri;
using sqlite::Statement;

namespace {

// The schema, one migration per version: migration i takes user_version i to i + 1. Never edit
// one that has shipped; append a new one.
const std::vector<std::string> kMigrations = {
    // 1: runs and their rows.
    R"sql(
CREATE TABLE runs (
  run_id TEXT PRIMARY KEY,
  label TEXT, backend TEXT, device TEXT, host TEXT,
  ranks INTEGER, threads INTEGER,
  kokkos_version TEXT, config_hash TEXT, experiment TEXT,
  start_time TEXT, end_time TEXT,
  status TEXT, complete INTEGER,
  source TEXT,          -- the run directory (or results.json) first imported
  metadata_json TEXT,   -- results.json "metadata", whole
  imported_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))
);
CREATE TABLE rows (
  run_id TEXT NOT NULL REFERENCES runs(run_id) ON DELETE CASCADE,
  case_index INTEGER NOT NULL, -- the case's position in the run's plan
  case_id TEXT NOT NULL,       -- axpby/flat/float32/4096x4096/a=2,b=0.5
  family TEXT, variant TEXT, precision TEXT,
  m INTEGER, n INTEGER, k INTEGER, tile INTEGER,
  rate REAL, unit TEXT,        -- GFLOP/s for matmul, GB/s for the others
  pct_of_ceiling REAL,         -- NULL: no ceiling measured in that unit
  status TEXT, valid TEXT,
  time_min_s REAL, time_median_s REAL, time_max_s REAL, total_median_s REAL,
  row_json TEXT NOT NULL,      -- the results.json row, whole
  PRIMARY KEY (run_id, case_index)
);
CREATE INDEX rows_by_case ON rows(case_id);
CREATE INDEX runs_by_start ON runs(start_time);
)sql",
};

} // namespace

// BEGIN IMMEDIATE: the write lock up front, so a second writer waits (busy timeout) instead of
// failing when it would upgrade a read transaction.
class Transaction {
public:
  explicit Transaction(Database& db) : db_(db) { db_.exec("BEGIN IMMEDIATE"); }
  void commit() {
    db_.exec("COMMIT");
    done_ = true;
  }
  ~Transaction() {
    if (!done_)
      sqlite3_exec(db_.db_, "ROLLBACK", nullptr, nullptr, nullptr);
  }

private:
  Database& db_;
  bool done_ = false;
};

// f() in one write transaction; SQLite's errors become DbError (prefixed with what), the input's
// stay InputError.
template <class F>
auto Database::in_transaction(const std::string& what, F&& f) -> decltype(f()) {
  try {
    Transaction t(*this);
    auto result = f();
    t.commit();
    return result;
  } catch (const DbError&) {
    throw;
  } catch (const InputError&) {
    throw;
  } catch (const std::exception& e) {
    fail(what + e.what());
  }
}

int latest_schema_version() {
  return int(kMigrations.size());
}

namespace {

// The database header (https://sqlite.org/fileformat.html), read before SQLite opens the file:
// whether the file is in WAL mode (write and read versions 2, bytes 18 and 19). A file that is
// neither empty nor an SQLite database is refused here, before SQLite touches it.
bool wal_mode(const std::string& path, bool may_be_empty) {
  char header[100] = {};
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f)
    throw DbError(path + ": cannot open the history database: " + std::strerror(errno));
  const std::size_t got = std::fread(header, 1, sizeof header, f);
  std::fclose(f);
  if (got == 0 && may_be_empty)
    return false;
  if (got < sizeof header || std::memcmp(header, "SQLite format 3", 16) != 0)
    throw InputError(path + ": not a miniapp history database (" +
                     (got == 0 ? "an empty file" : "not an SQLite database") + ")");
  return header[18] == 2 || header[19] == 2;
}

// SQLite's busy timeout, but a stop request (SIGTERM, SIGINT, ...) ends the wait: a run or import
// waiting up to a minute for another process's lock must not ignore the signal that asks it to
// end (docs/history.md, "Several writers"). Returns nonzero to wait and try again.
int wait_unless_stopped(void*, int tries) {
  constexpr int kSleepMs = 10;
  if (stop_requested() || tries * kSleepMs >= kBusyTimeoutMs)
    return 0;
  ::usleep(kSleepMs * 1000);
  return 1;
}

} // namespace

Database::Database(const std::string& path, Access access) : path_(path) {
  // SQLite would open a FIFO and fail on it as "disk I/O error" (exit 3); a reader said "no such
  // history database". Like every file read, it is refused by its kind, naming it.
  try {
    refuse_unless_regular(path_);
  } catch (const InputFileError& e) {
    throw InputError(e.what());
  }
  try {
    if (access == Access::read_only)
      open_for_reading(true);
    else
      open_for_writing();
  } catch (...) {
    close();
    throw;
  }
}

void Database::open(const std::string& name, int flags) {
  close();
  if (sqlite3_open_v2(name.c_str(), &db_, flags | SQLITE_OPEN_NOMUTEX, nullptr) != SQLITE_OK) {
    const std::string why = db_ ? sqlite3_errmsg(db_) : "out of memory";
    close();
    throw DbError(path_ + ": cannot open the history database: " + why);
  }
  sqlite3_busy_handler(db_, wait_unless_stopped, nullptr);
}

void Database::close() {
  sqlite3_close(db_);
  db_ = nullptr;
}

// Read-only, and nothing written: SQLite would create (and, read-only, leave behind) the -wal and
// -shm files of a WAL database that no connection has open, so such a database (no -wal file: all
// of it is in the main file) is opened immutable, reading the main file alone without locks; read()
// then keeps what it read only when no writer changed the file meanwhile. A database a writer has
// open is read through the writer's -wal and -shm files, with SQLite's locks.
void Database::open_for_reading(bool may_be_immutable) {
  struct stat st {};
  if (::stat(path_.c_str(), &st) != 0 && errno != ENOENT)
    throw DbError(path_ + ": cannot open the history database: " + std::strerror(errno));
  if (!S_ISREG(st.st_mode))
    throw DbError(path_ + ": no such history database (miniapp db import --db " + path_ +
                  " RUN... makes one)");
  for (int attempt = 0;; ++attempt) {
    const bool wal = wal_mode(path_, false);
    opened_state_ = file_state(path_);
    immutable_ = may_be_immutable && attempt < 2 && wal && !is_file(path_ + "-wal");
    open(read_only_uri(path_, immutable_), SQLITE_OPEN_READONLY | SQLITE_OPEN_URI);
    try {
      check_schema(false);
    } catch (...) {
      if (unchanged_since_open())
        throw;
      continue;
    }
    if (unchanged_since_open())
      return;
  }
}

// The checks come before the switch to WAL and the migrations: a database that is not ours, or
// of a schema version this program does not know, is refused as it is.
void Database::open_for_writing() {
  const bool network = !network_filesystem_of(path_).empty();
  if (is_file(path_))
    wal_mode(path_, true); // refuses a file that is not SQLite before SQLite opens it
  open(path_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
  check_schema(true);
  // Switching to WAL takes an exclusive lock, and SQLite answers SQLITE_BUSY at once, without
  // the busy handler (it could deadlock), while another connection holds a lock: several jobs
  // opening a new database together. history.concurrency failed once under load (not
  // reproduced in 60 tries; this is the failure SQLite documents for that moment): retry
  // within the busy timeout.
  for (int waited_ms = 0;; waited_ms += 10) {
    const char* journal = network ? "PRAGMA journal_mode=DELETE" : "PRAGMA journal_mode=WAL";
    if (sqlite3_exec(db_, journal, nullptr, nullptr, nullptr) == SQLITE_OK)
      break;
    if (sqlite3_errcode(db_) != SQLITE_BUSY || waited_ms >= kBusyTimeoutMs || stop_requested())
      fail(std::string("cannot switch to ") + (network ? "a rollback journal: " : "WAL: ") +
           sqlite3_errmsg(db_));
    ::usleep(10000);
  }
  // NORMAL in WAL mode: a commit survives the process being killed (not a power cut); FULL, the
  // rollback journal's safe level, on a network filesystem.
  exec(network ? "PRAGMA synchronous=FULL" : "PRAGMA synchronous=NORMAL");
  exec("PRAGMA foreign_keys=ON");
  Transaction t(*this);
  for (int v = check_schema(true); v < latest_schema_version(); ++v) {
    exec(kMigrations[std::size_t(v)]);
    exec("PRAGMA user_version=" + std::to_string(v + 1));
  }
  t.commit();
}

// The schema version, 0 for a new (empty) database where may_be_new. Throws InputError for a
// database that is not ours: a version this program does not know (negative, or newer), another
// program's tables, or a version without the tables it has.
int Database::check_schema(bool may_be_new) {
  int version = 0;
  std::vector<std::string> tables;
  try {
    Statement v(db_, "PRAGMA user_version");
    version = v.step() ? int(v.integer(0)) : 0;
    Statement t(db_, "SELECT name FROM sqlite_master WHERE type IN ('table', 'view') AND name NOT "
                     "LIKE 'sqlite!_%' ESCAPE '!' ORDER BY name");
    while (t.step())
      tables.push_back(t.text(0));
  } catch (const std::runtime_error& e) {
    const int code = sqlite3_errcode(db_);
    if (code == SQLITE_NOTADB || code == SQLITE_CORRUPT)
      throw InputError(path_ + ": not a miniapp history database (" + e.what() + ")");
    fail(e.what());
  }
  const std::string latest = std::to_string(latest_schema_version());
  const std::string not_ours = path_ + ": not a miniapp history database (";
  if (version > latest_schema_version())
    throw InputError(path_ + ": history database schema version " + std::to_string(version) +
                     " is newer than this miniapp knows (" + latest + "); use a newer miniapp");
  if (version < 0)
    throw InputError(not_ours + "schema version " + std::to_string(version) +
                     ", which no miniapp writes)");
  if (version == 0 && !tables.empty()) {
    std::string names;
    for (const auto& t : tables)
      names += (names.empty() ? "" : ", ") + t;
    throw InputError(not_ours + "it holds another program's tables: " + names.substr(0, 200) +
                     "; miniapp leaves it as it is)");
  }
  if (version == 0 && !may_be_new)
    throw InputError(not_ours + "no miniapp tables; miniapp db import --db " + path_ +
                     " RUN... makes one)");
  for (const char* needed : {"runs", "rows"})
    if (version > 0 && std::find(tables.begin(), tables.end(), needed) == tables.end())
      throw InputError(not_ours + "schema version " + std::to_string(version) +
                       " without its table " + needed + ")");
  return version;
}

bool Database::unchanged_since_open() const {
  return !immutable_ || file_state(path_) == opened_state_;
}

// f() reads; read immutable, what it read is kept only when the file did not change meanwhile
// (a writer that started checkpoints into it), else the database is read again (the third time
// through SQLite's locks).
template <class F>
auto Database::read(F&& f) -> decltype(f()) {
  for (int attempt = 0;; ++attempt) {
    try {
      auto result = f();
      if (unchanged_since_open())
        return result;
    } catch (...) {
      if (unchanged_since_open())
        throw;
    }
    open_for_reading(attempt < 1);
  }
}

Database::~Database() {
  close();
}

void Database::fail(const std::string& what) {
  throw DbError(path_ + ": " + what);
}

void Database::exec(const std::string& sql) {
  char* err = nullptr;
  if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
    const std::string why = err ? err : sqlite3_errmsg(db_);
    sqlite3_free(err);
    fail(why);
  }
}

int Database::schema_version() {
  try {
    Statement s(db_, "PRAGMA user_version");
    return s.step() ? int(s.integer(0)) : 0;
  } catch (const std::runtime_error& e) {
    fail(e.what());
  }
}

ImportResult Database::import_document(const nlohmann::json& doc, const std::string& source) {
  return in_transaction("cannot import " + source + ": ",
                        [&] { return import_unlocked(doc, source); });
}

std::vector<ImportResult> Database::import_path(const std::string& path) {
  return in_transaction("", [&] { return import_path_unlocked(path); });
}

std::vector<ImportResult> Database::rebuild(const std::vector<std::string>& paths) {
  return in_transaction("", [&] {
    exec("DELETE FROM rows; DELETE FROM runs;");
    std::vector<ImportResult> all;
    for (const auto& p : paths)
      for (auto& r : import_path_unlocked(p))
        all.push_back(std::move(r));
    return all;
  });
}

std::vector<Point> Database::history(const Filter& f) {
  return read([&] { return history_unlocked(f); });
}

std::vector<Point> Database::history_unlocked(const Filter& f) {
  std::vector<Point> out;
  try {
    Statement s(db_, R"sql(
SELECT r.case_id, r.run_id, u.label, u.host, u.device, u.backend, u.start_time, r.rate, r.unit,
       r.pct_of_ceiling, r.status, r.valid, u.experiment,
       json_extract(r.row_json, '$.host_load'), json_extract(u.metadata_json, '$.host_cpus'),
       json_extract(r.row_json, '$.ceiling_disturbed'), json_extract(r.row_json, '$.ceiling_high'),
       json_extract(r.row_json, '$.host_others')
FROM rows r JOIN runs u ON u.run_id = r.run_id
ORDER BY r.case_id, u.start_time, u.run_id, r.case_index)sql");
    while (s.step()) {
      Point p;
      p.case_id = s.text(0);
      p.run_id = s.text(1);
      p.label = s.text(2);
      p.host = s.text(3);
      p.device = s.text(4);
      p.backend = s.text(5);
      p.start_time = s.text(6);
      p.rate = s.real(7, 0);
      p.unit = s.text(8);
      p.pct_of_ceiling = s.real(9, -1);
      p.status = s.text(10);
      p.valid = s.text(11);
      // The marks of the row as every other output gives them (compare::marks_of's columns).
      p.marks = row_marks(s.real(17, -1), s.real(13, -1), int(s.real(14, 0)), s.real(15, 0) == 1,
                          s.real(16, 0));
      if (!run_matches(f, p.run_id, p.label, p.host, p.backend, p.device, s.text(12),
                       p.start_time) ||
          (!f.case_pattern.empty() && !references::glob_match(f.case_pattern, p.case_id)))
        continue;
      out.push_back(std::move(p));
    }
  } catch (const std::runtime_error& e) {
    fail(e.what());
  }
  // Cases in natural order (sizes as numbers: SQL's text order put 1024 before 128), each case's
  // points in the query's time order.
  std::stable_sort(out.begin(), out.end(), [](const Point& a, const Point& b) {
    return natural_less(a.case_id, b.case_id);
  });
  return out;
}

std::vector<compare::Run> Database::select_runs(const Filter& f) {
  return read([&] { return select_runs_unlocked(f); });
}

std::vector<compare::Run> Database::select_runs_unlocked(const Filter& f) {
  // The stored JSON is read with the limits of a results file: the database is a file too.
  const auto parse = [&](const std::string& text, const std::string& id, const char* column) {
    try {
      return compare::parse_results_text(text, path_ + " (run " + id + ", " + column + ")");
    } catch (const std::runtime_error& e) {
      throw InputError(e.what());
    }
  };
  std::vector<compare::Run> out;
  try {
    Statement runs(db_, R"sql(
SELECT run_id, label, host, backend, device, experiment, start_time, status, complete,
       metadata_json, source
FROM runs ORDER BY start_time, run_id)sql");
    Statement rows(db_, "SELECT case_id, row_json FROM rows WHERE run_id = ?1 ORDER BY case_index");
    while (runs.step()) {
      const std::string id = runs.text(0);
      if (!run_matches(f, id, runs.text(1), runs.text(2), runs.text(3), runs.text(4), runs.text(5),
                       runs.text(6)))
        continue;
      // The document as results.json had it (less the config, which compare only names).
      nlohmann::json doc = {{"status", runs.text(7)},
                            {"complete", runs.integer(8) != 0},
                            {"config", {{"name", runs.text(5)}}},
                            {"metadata", parse(runs.text(9), id, "metadata_json")},
                            {"results", nlohmann::json::array()}};
      rows.reset();
      rows.bind(1, id);
      while (rows.step())
        if (f.case_pattern.empty() || references::glob_match(f.case_pattern, rows.text(0)))
          doc["results"].push_back(parse(rows.text(1), id, "row_json"));
      if (doc["results"].empty())
        continue;
      out.push_back(compare::run_from_json(doc, runs.text(10)));
    }
  } catch (const InputError&) {
    throw;
  } catch (const std::exception& e) {
    fail(e.what());
  }
  return out;
}

std::vector<compare::Run> select_runs(Database& db, const Filter& filter) {
  return db.select_runs(filter);
}

} // namespace miniapp::history
