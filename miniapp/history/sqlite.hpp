#pragma once
// The few pieces of SQLite the history database (history/db.hpp) uses, each finalized or
// closed on every path: a prepared statement with typed binds and columns, and what a reader
// needs to know about a database file before SQLite opens it.
#include <sqlite3.h>

#include <cmath>
#include <stdexcept>
#include <string>

namespace miniapp::sqlite {

// A prepared statement, finalized on every path; SQLite's errors throw std::runtime_error.
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

// The file as stat(2) sees it: device, inode, size, modification and change times. Any write to
// the file changes it. Empty when the file cannot be read.
std::string file_state(const std::string& path);
// "file:PATH?mode=ro[&immutable=1]": '%', '?' and '#' in the path escaped.
std::string read_only_uri(const std::string& path, bool immutable);

} // namespace miniapp::sqlite
