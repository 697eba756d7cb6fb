#include "report/history_db.hpp"
#include "core/files.hpp"

#include "report/references.hpp"
#include "report/run_id.hpp"

#include <sqlite3.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <dirent.h>
#include <map>
#include <sys/stat.h>
#include <unistd.h>

namespace miniapp::history {

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

// A prepared statement, finalized on every path.
class Statement {
public:
  Statement(sqlite3* db, const std::string& sql) : db_(db) {
    if (sqlite3_prepare_v2(db, sql.c_str(), int(sql.size()), &st_, nullptr) != SQLITE_OK)
      throw std::runtime_error(sqlite3_errmsg(db));
  }
  ~Statement() { sqlite3_finalize(st_); }
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;
  Statement& bind(int i, const std::string& v) {
    check(sqlite3_bind_text(st_, i, v.c_str(), int(v.size()), SQLITE_TRANSIENT));
    return *this;
  }
  Statement& bind(int i, long long v) {
    check(sqlite3_bind_int64(st_, i, v));
    return *this;
  }
  Statement& bind(int i, double v) {
    check(std::isfinite(v) ? sqlite3_bind_double(st_, i, v) : sqlite3_bind_null(st_, i));
    return *this;
  }
  Statement& bind_null(int i) {
    check(sqlite3_bind_null(st_, i));
    return *this;
  }
  bool step() { // true: a row is ready
    const int rc = sqlite3_step(st_);
    if (rc == SQLITE_ROW)
      return true;
    if (rc == SQLITE_DONE)
      return false;
    throw std::runtime_error(sqlite3_errmsg(db_));
  }
  void reset() {
    sqlite3_reset(st_);
    sqlite3_clear_bindings(st_);
  }
  std::string text(int col) const {
    const auto* p = sqlite3_column_text(st_, col);
    return p ? reinterpret_cast<const char*>(p) : "";
  }
  double real(int col, double null_value) const {
    return sqlite3_column_type(st_, col) == SQLITE_NULL ? null_value
                                                        : sqlite3_column_double(st_, col);
  }
  long long integer(int col) const { return sqlite3_column_int64(st_, col); }

private:
  void check(int rc) {
    if (rc != SQLITE_OK)
      throw std::runtime_error(sqlite3_errmsg(db_));
  }
  sqlite3* db_;
  sqlite3_stmt* st_ = nullptr;
};

bool digits(const std::string& s, std::size_t from, std::size_t count) {
  if (s.size() < from + count)
    return false;
  return std::all_of(s.begin() + long(from), s.begin() + long(from + count),
                     [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; });
}

bool run_matches(const Filter& f, const std::string& run_id, const std::string& label,
                 const std::string& host, const std::string& backend, const std::string& device,
                 const std::string& experiment, const std::string& start_time) {
  const auto ok = [](const std::string& pattern, const std::string& value) {
    return pattern.empty() || references::glob_match(pattern, value);
  };
  return ok(f.run_id, run_id) && ok(f.label, label) && ok(f.host, host) && ok(f.backend, backend) &&
         ok(f.device, device) && ok(f.experiment, experiment) &&
         (f.since.empty() || start_time >= f.since);
}

nlohmann::json read_document(const std::string& file) {
  try {
    return compare::read_results_json(file);
  } catch (const std::runtime_error& e) {
    throw InputError(e.what());
  }
}

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

bool valid_since(const std::string& s) {
  if (!(digits(s, 0, 4) && s.size() >= 10 && s[4] == '-' && digits(s, 5, 2) && s[7] == '-' &&
        digits(s, 8, 2)))
    return false;
  if (s.size() == 10)
    return true;
  std::string rest = s.substr(10);
  if (!rest.empty() && rest.back() == 'Z')
    rest.pop_back();
  return (rest.size() == 6 || rest.size() == 9) && rest[0] == 'T' && digits(rest, 1, 2) &&
         rest[3] == ':' && digits(rest, 4, 2) &&
         (rest.size() == 6 || (rest[6] == ':' && digits(rest, 7, 2)));
}

void add_condition(Filter& f, const std::string& key_value) {
  const auto eq = key_value.find('=');
  const std::string key = key_value.substr(0, eq);
  const std::string value = eq == std::string::npos ? "" : key_value.substr(eq + 1);
  const std::vector<std::string> keys = {"run",    "label",      "host",  "backend",
                                         "device", "experiment", "since", "case"};
  if (eq == std::string::npos || std::find(keys.begin(), keys.end(), key) == keys.end()) {
    std::string list;
    for (const auto& k : keys)
      list += (list.empty() ? "" : ", ") + k;
    throw std::invalid_argument("'" + key_value + "' is not KEY=VALUE with KEY one of " + list);
  }
  if (value.empty())
    throw std::invalid_argument("'" + key_value + "': the value is empty");
  if (key == "since" && !valid_since(value))
    throw std::invalid_argument("since=" + value +
                                ": expected a date YYYY-MM-DD or time YYYY-MM-DDTHH:MM[:SS]Z");
  std::string& slot = key == "run"       ? f.run_id
                      : key == "label"   ? f.label
                      : key == "host"    ? f.host
                      : key == "backend" ? f.backend
                      : key == "device"  ? f.device
                      : key == "since"   ? f.since
                      : key == "case"    ? f.case_pattern
                                         : f.experiment;
  slot = value;
}

namespace {

// The file as stat(2) sees it: device, inode, size, modification and change times. Any write to
// the file changes it.
std::string file_state(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0)
    return "";
  return std::to_string(st.st_dev) + ":" + std::to_string(st.st_ino) + ":" +
         std::to_string(st.st_size) + ":" + std::to_string(st.st_mtim.tv_sec) + "." +
         std::to_string(st.st_mtim.tv_nsec) + ":" + std::to_string(st.st_ctim.tv_sec) + "." +
         std::to_string(st.st_ctim.tv_nsec);
}

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

// "file:PATH?mode=ro[&immutable=1]": '%', '?' and '#' in the path escaped.
std::string read_only_uri(const std::string& path, bool immutable) {
  std::string uri = path.compare(0, 1, "/") == 0 ? "file://" : "file:";
  for (const char ch : path) {
    if (ch == '%' || ch == '?' || ch == '#') {
      char hex[4];
      std::snprintf(hex, sizeof hex, "%%%02X", static_cast<unsigned char>(ch));
      uri += hex;
    } else {
      uri += ch;
    }
  }
  return uri + "?mode=ro" + (immutable ? "&immutable=1" : "");
}

} // namespace

Database::Database(const std::string& path, Access access) : path_(path) {
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
  sqlite3_busy_timeout(db_, kBusyTimeoutMs);
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
    if (sqlite3_exec(db_, "PRAGMA journal_mode=WAL", nullptr, nullptr, nullptr) == SQLITE_OK)
      break;
    if (sqlite3_errcode(db_) != SQLITE_BUSY || waited_ms >= kBusyTimeoutMs)
      fail(std::string("cannot switch to WAL: ") + sqlite3_errmsg(db_));
    ::usleep(10000);
  }
  // NORMAL in WAL mode: a commit survives the process being killed (not a power cut).
  exec("PRAGMA synchronous=NORMAL");
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
      .bind(16, meta.dump());
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
        .bind(7, static_cast<long long>(r.m))
        .bind(8, static_cast<long long>(r.n))
        .bind(9, static_cast<long long>(r.k))
        .bind(10, static_cast<long long>(r.tile))
        .bind(11, unit == "GFLOP/s" ? r.gflops : r.gbs)
        .bind(12, unit)
        .bind(13, pct >= 0 ? pct : NAN)
        .bind(14, r.status)
        .bind(15, r.valid)
        .bind(16, r.time_min)
        .bind(17, r.time_median)
        .bind(18, r.time_max)
        .bind(19, r.total_median)
        .bind(20, rows[i].dump());
    upsert_row.step();
    result.changed += sqlite3_changes(db_);
    ++result.rows;
  }
  return result;
}

ImportResult Database::import_document(const nlohmann::json& doc, const std::string& source) {
  return in_transaction("cannot import " + source + ": ",
                        [&] { return import_unlocked(doc, source); });
}

std::vector<ImportResult> Database::import_path_unlocked(const std::string& path) {
  std::string p = path;
  while (p.size() > 1 && p.back() == '/')
    p.pop_back();
  std::vector<ImportResult> out;
  if (is_dir(p) && !is_file(p + "/results.json")) {
    // A directory of runs (docs/data/weak_scaling-h200x4): each subdirectory with results.json.
    std::vector<std::string> subdirs;
    if (auto* d = ::opendir(p.c_str())) {
      while (const dirent* e = ::readdir(d)) {
        const std::string name = e->d_name;
        if (name != "." && name != ".." && is_file(p + "/" + name + "/results.json"))
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
  if (!is_file(file))
    throw InputError(p + ": no such run directory or results.json");
  out.push_back(import_unlocked(read_document(file), p));
  return out;
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
       r.pct_of_ceiling, r.status, r.valid, u.experiment
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
      if (!run_matches(f, p.run_id, p.label, p.host, p.backend, p.device, s.text(12),
                       p.start_time) ||
          (!f.case_pattern.empty() && !references::glob_match(f.case_pattern, p.case_id)))
        continue;
      out.push_back(std::move(p));
    }
  } catch (const std::runtime_error& e) {
    fail(e.what());
  }
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
