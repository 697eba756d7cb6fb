// References (issue 17): the rule a row is judged by (tolerance boundary, first matching entry,
// backend/device globs, percent of the ceiling, rows that measured nothing) and the history
// database (schema version, idempotent import, integer/null fields of the next results schema,
// select_runs round trip, a database newer than the program) and what it refuses (issue 23:
// schema versions out of range and other programs' databases, unchanged; JSON nested too deep;
// rows sharing a case) and what reading leaves (the file as it was, no -wal or -shm).
#include "history/db.hpp"
#include "history/filesystem.hpp"
#include "results/references.hpp"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <sys/stat.h>
#include <unistd.h>

namespace miniapp {
namespace {

compare::Row axpby_row(double gbs) {
  compare::Row r;
  r.family = "axpby";
  r.variant = "flat";
  r.precision = "float32";
  r.fields = {{"m", 1024}, {"n", 1024}, {"alpha", 2.0}, {"beta", 0.5}, {"seed", 42}};
  r.status = "ok";
  r.valid = "true";
  r.gbs = gbs;
  r.gflops = gbs / 4;
  r.ceiling = "copy bandwidth";
  r.ceiling_unit = "GB/s";
  r.ceiling_value = 200;
  return r;
}

compare::Run host_run(const std::string& backend) {
  compare::Run run;
  run.backend = backend;
  run.device = "AMD EPYC 7763";
  return run;
}

references::References refs(const std::string& text) {
  return references::parse_references("refs.yaml", text);
}

TEST(References, CaseIdIsThePlansAndGlobsCrossSlashes) {
  EXPECT_EQ(references::case_id(axpby_row(1)), "axpby/flat/float32/1024x1024/a=2,b=0.5");
  EXPECT_TRUE(references::glob_match("axpby/*", "axpby/flat/float32/1024x1024/a=2,b=0.5"));
  EXPECT_FALSE(references::glob_match("matmul/*", "axpby/flat/float32/1024x1024/a=2,b=0.5"));
}

TEST(References, ToleranceIsALowerBoundInclusive) {
  const auto r = refs("references:\n  - {case: 'axpby/*', rate: 100, tolerance_pct: 10}\n");
  const auto run = host_run("openmp");
  EXPECT_EQ(references::check(r, run, axpby_row(90)).status, references::Status::met);
  EXPECT_EQ(references::check(r, run, axpby_row(89.9)).status, references::Status::below);
  const auto c = references::check(r, run, axpby_row(89.9));
  EXPECT_DOUBLE_EQ(c.expected, 100);
  EXPECT_DOUBLE_EQ(c.threshold, 90);
  EXPECT_EQ(c.unit, "GB/s");
  EXPECT_EQ(c.ref->where, "refs.yaml:2:5");
}

TEST(References, FirstMatchingEntryWinsAndGlobsFilterBackendAndDevice) {
  const auto r = refs("references:\n"
                      "  - {case: 'axpby/*', backend: cuda, rate: 1000}\n"
                      "  - {case: 'axpby/*', device: '*EPYC*', rate: 50, unit: GFLOP/s}\n"
                      "  - {case: '*', rate: 1}\n");
  const auto c = references::check(r, host_run("openmp"), axpby_row(100)); // 25 GFLOP/s
  EXPECT_EQ(c.status, references::Status::below);
  EXPECT_EQ(c.unit, "GFLOP/s");
  EXPECT_DOUBLE_EQ(c.measured, 25);
  EXPECT_EQ(references::check(r, host_run("cuda"), axpby_row(100)).expected, 1000);
}

TEST(References, PercentOfTheSameRunsCeiling) {
  const auto r = refs("references:\n  - {case: 'axpby/*', pct_of_ceiling: 50}\n");
  EXPECT_EQ(references::check(r, host_run("openmp"), axpby_row(100)).status,
            references::Status::met); // 100 of 200 GB/s
  EXPECT_EQ(references::check(r, host_run("openmp"), axpby_row(99)).status,
            references::Status::below);
  auto no_ceiling = axpby_row(100);
  no_ceiling.ceiling_value = 0;
  EXPECT_EQ(references::check(r, host_run("openmp"), no_ceiling).status, references::Status::none);
}

TEST(References, RowsThatMeasuredNothingHaveNoReference) {
  const auto r = refs("references:\n  - {case: '*', rate: 1}\n");
  auto invalid = axpby_row(0);
  invalid.status = "invalid";
  EXPECT_EQ(references::check(r, host_run("openmp"), invalid).status, references::Status::none);
}

// A results.json document as the next results schema writes it: integers stay integers, unused
// parameters are null, a case_id column.
nlohmann::json document(const std::string& run_id, const std::string& status) {
  nlohmann::json row = {{"case", 0},
                        {"case_id", "axpby/flat/float32/64x64/a=2,b=0.5"},
                        {"family", "axpby"},
                        {"variant", "flat"},
                        {"precision", "float32"},
                        {"m", 64},
                        {"n", 64},
                        {"k", nullptr},
                        {"tile", nullptr},
                        {"alpha", 2.0},
                        {"beta", 0.5},
                        {"seed", 42},
                        {"status", "ok"},
                        {"valid", true},
                        {"gbs", 12.5},
                        {"gflops", 3.1},
                        {"ceiling_unit", "GB/s"},
                        {"ceiling_value", 25.0},
                        {"time_median_s", 1e-6}};
  return {{"schema_version", 2},
          {"status", status},
          {"complete", status == "complete"},
          {"config", {{"name", "t"}}},
          {"metadata",
           {{"run_id", run_id},
            {"host_name", "node01"},
            {"backend", "openmp"},
            {"start_time", "2026-11-22T08:00:00Z"}}},
          {"results", {row}}};
}

struct TempDb {
  std::string path = "/tmp/miniapp-test-history-" + std::to_string(::getpid()) + ".db";
  ~TempDb() {
    for (const char* suffix : {"", "-wal", "-shm"})
      std::remove((path + suffix).c_str());
  }
};

TEST(HistoryDb, ImportIsIdempotentAndSelectRunsGivesTheRunBack) {
  TempDb tmp;
  history::Database db(tmp.path, history::Access::read_write);
  EXPECT_EQ(db.schema_version(), history::latest_schema_version());
  auto first = db.import_document(document("r1", "running"), "dir/r1");
  EXPECT_EQ(first.rows, 1);
  EXPECT_EQ(first.changed, 1);
  EXPECT_TRUE(first.run_changed);
  auto again = db.import_document(document("r1", "running"), "dir/r1");
  EXPECT_EQ(again.changed, 0);
  EXPECT_FALSE(again.run_changed);
  auto done = db.import_document(document("r1", "complete"), "dir/r1");
  EXPECT_TRUE(done.run_changed);

  history::Filter f;
  history::add_condition(f, "host=node*");
  const auto runs = history::select_runs(db, f);
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_TRUE(runs[0].complete);
  ASSERT_EQ(runs[0].rows.size(), 1u);
  EXPECT_DOUBLE_EQ(runs[0].rows[0].gbs, 12.5);
  EXPECT_EQ(runs[0].rows[0].integer("k"), 0); // null reads as absent
  const auto points = db.history(f);
  ASSERT_EQ(points.size(), 1u);
  EXPECT_EQ(points[0].case_id, "axpby/flat/float32/64x64/a=2,b=0.5");
  EXPECT_DOUBLE_EQ(points[0].pct_of_ceiling, 50);
  history::add_condition(f, "since=2026-11-23");
  EXPECT_TRUE(db.history(f).empty());
  EXPECT_THROW(history::add_condition(f, "colour=red"), std::invalid_argument);
}

void exec(const std::string& path, const std::string& sql) {
  sqlite3* raw = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &raw), SQLITE_OK);
  EXPECT_EQ(sqlite3_exec(raw, sql.c_str(), nullptr, nullptr, nullptr), SQLITE_OK) << sql;
  sqlite3_close(raw);
}

// The file's bytes and modification time, and whether a -wal or -shm file is beside it.
std::string file_state(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  struct stat st {};
  ::stat(path.c_str(), &st);
  return bytes.str() + "|" + std::to_string(st.st_mtim.tv_sec) + "." +
         std::to_string(st.st_mtim.tv_nsec) + "|" +
         std::to_string(::access((path + "-wal").c_str(), F_OK)) +
         std::to_string(::access((path + "-shm").c_str(), F_OK));
}

// Opening as `access` throws InputError naming the file, containing `words`.
void expect_refused(const std::string& path, history::Access access, const std::string& words) {
  try {
    history::Database db(path, access);
    ADD_FAILURE() << path << " was opened";
  } catch (const history::InputError& e) {
    const std::string what = e.what();
    EXPECT_EQ(what.rfind(path + ": ", 0), 0u) << what;
    EXPECT_NE(what.find(words), std::string::npos) << what;
  }
}

// Sizes in numeric order (SQL's text order listed 1024 before 128 and 2048).
TEST(HistoryDb, CasesInNumericOrderOfTheirSizes) {
  TempDb tmp;
  history::Database db(tmp.path, history::Access::read_write);
  nlohmann::json doc = document("r1", "complete");
  const nlohmann::json one = doc["results"][0];
  doc["results"] = nlohmann::json::array();
  int index = 0;
  for (int n : {2048, 128, 1024}) {
    nlohmann::json r = one;
    r["case"] = index++;
    r["m"] = n;
    r["n"] = n;
    r["case_id"] = "axpby/flat/float32/" + std::to_string(n) + "x" + std::to_string(n);
    doc["results"].push_back(r);
  }
  db.import_document(doc, "dir/r1");
  const auto points = db.history({});
  ASSERT_EQ(points.size(), 3u);
  EXPECT_EQ(points[0].case_id, "axpby/flat/float32/128x128/a=2,b=0.5");
  EXPECT_EQ(points[1].case_id, "axpby/flat/float32/1024x1024/a=2,b=0.5");
  EXPECT_EQ(points[2].case_id, "axpby/flat/float32/2048x2048/a=2,b=0.5");
}

TEST(HistoryDb, SchemaVersionsOutOfRangeAreRefusedUnchanged) {
  TempDb tmp;
  { history::Database db(tmp.path, history::Access::read_write); }
  // The rollback journal, so that a switch to WAL would show in the file.
  exec(tmp.path, "PRAGMA journal_mode=DELETE");
  for (const long long version : {-1LL, -2147483648LL, history::latest_schema_version() + 1LL}) {
    exec(tmp.path, "PRAGMA user_version=" + std::to_string(version));
    const std::string before = file_state(tmp.path);
    const std::string words =
        version > 0 ? "is newer than this miniapp knows" : "not a miniapp history database";
    expect_refused(tmp.path, history::Access::read_only, words);
    expect_refused(tmp.path, history::Access::read_write, words);
    EXPECT_EQ(file_state(tmp.path), before) << "user_version " << version;
  }
}

TEST(HistoryDb, AnotherProgramsDatabaseIsRefusedUnchanged) {
  TempDb tmp;
  exec(tmp.path, "CREATE TABLE contacts (name TEXT); INSERT INTO contacts VALUES ('ada')");
  const std::string before = file_state(tmp.path);
  expect_refused(tmp.path, history::Access::read_only, "another program's tables: contacts");
  expect_refused(tmp.path, history::Access::read_write, "another program's tables: contacts");
  EXPECT_EQ(file_state(tmp.path), before);
  std::ofstream(tmp.path, std::ios::trunc) << "plain text, not a database";
  expect_refused(tmp.path, history::Access::read_write, "not an SQLite database");
}

TEST(HistoryDb, ReadingLeavesTheFileAsItWas) {
  TempDb tmp;
  {
    history::Database db(tmp.path, history::Access::read_write);
    db.import_document(document("r1", "complete"), "dir/r1");
  }
  const std::string before = file_state(tmp.path);
  {
    history::Database db(tmp.path, history::Access::read_only);
    EXPECT_EQ(db.history({}).size(), 1u);
    EXPECT_EQ(history::select_runs(db, {}).size(), 1u);
    EXPECT_THROW(db.import_document(document("r2", "complete"), "dir/r2"), history::DbError);
  }
  EXPECT_EQ(file_state(tmp.path), before);
  TempDb missing;
  missing.path += "-missing";
  EXPECT_THROW(history::Database(missing.path, history::Access::read_only), history::DbError);
  EXPECT_NE(::access(missing.path.c_str(), F_OK), 0) << "reading created the database";
}

TEST(HistoryDb, DeepJsonInTheDatabaseIsRefusedNotACrash) {
  TempDb tmp;
  history::Database db(tmp.path, history::Access::read_write);
  db.import_document(document("r1", "complete"), "dir/r1");
  exec(tmp.path, "UPDATE runs SET metadata_json = '{\"x\": " + std::string(100000, '[') +
                     std::string(100000, ']') + "}'");
  try {
    history::select_runs(db, {});
    ADD_FAILURE() << "metadata nested 100,000 deep was read";
  } catch (const history::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("nested deeper than 64 levels"), std::string::npos)
        << e.what();
  }
}

TEST(HistoryDb, RowsSharingACaseAreRefusedAndTypeErrorsAreInputErrors) {
  TempDb tmp;
  history::Database db(tmp.path, history::Access::read_write);
  nlohmann::json doc = document("r1", "complete");
  doc["results"].push_back(doc["results"][0]);
  EXPECT_THROW(db.import_document(doc, "dup.json"), history::InputError);
  doc["results"][1]["case"] = 1;
  EXPECT_EQ(db.import_document(doc, "two.json").rows, 2);
  EXPECT_EQ(history::select_runs(db, {}).at(0).rows.size(), 2u);
  doc["complete"] = "yes";
  try {
    db.import_document(doc, "yes.json");
    ADD_FAILURE() << "\"complete\": \"yes\" was imported";
  } catch (const history::InputError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("yes.json: \"complete\"", 0), 0u) << e.what();
  }
}

TEST(HistoryDb, ANewerSchemaIsRefused) {
  TempDb tmp;
  { history::Database db(tmp.path, history::Access::read_write); }
  exec(tmp.path, "PRAGMA user_version=" + std::to_string(history::latest_schema_version() + 1));
  expect_refused(tmp.path, history::Access::read_write, "is newer than this miniapp knows");
}

// The network filesystems a cluster shares (statfs magic numbers) keep the rollback journal; a
// local disk (ext4, xfs, tmpfs) keeps WAL. A new database is judged by its directory.
long nfs(const std::string&) {
  return 0x6969;
}
long lustre(const std::string&) {
  return 0x0BD00BD0;
}
long ext4(const std::string&) {
  return 0xEF53;
}
std::string asked_path;
long record_path(const std::string& path) {
  asked_path = path;
  return 0xFF534D42; // CIFS
}

TEST(HistoryFilesystem, NetworkFilesystemsByTheirStatfsType) {
  EXPECT_EQ(history::network_filesystem_name(0x6969), "NFS");
  EXPECT_EQ(history::network_filesystem_name(0x0BD00BD0), "Lustre");
  EXPECT_EQ(history::network_filesystem_name(0x47504653), "GPFS");
  EXPECT_EQ(history::network_filesystem_name(0x19830326), "BeeGFS");
  EXPECT_EQ(history::network_filesystem_name(long(0xFF534D42)), "CIFS");
  EXPECT_EQ(history::network_filesystem_name(0xEF53), "");     // ext4
  EXPECT_EQ(history::network_filesystem_name(0x01021994), ""); // tmpfs
  EXPECT_EQ(history::network_filesystem_name(-1), "");
  EXPECT_EQ(history::network_filesystem_of("/any/history.db", nfs), "NFS");
  EXPECT_EQ(history::network_filesystem_of("/any/history.db", lustre), "Lustre");
  EXPECT_EQ(history::network_filesystem_of("/any/history.db", ext4), "");
  EXPECT_EQ(history::network_filesystem_of("/no/such/dir/history.db", record_path), "CIFS");
  EXPECT_EQ(asked_path, "/no/such/dir");
  EXPECT_EQ(history::network_filesystem_of("history.db", record_path), "CIFS");
  EXPECT_EQ(asked_path, ".");
}

TEST(HistoryFilesystem, ADatabaseOnALocalDiskIsWrittenInWal) {
  TempDb tmp;
  { history::Database db(tmp.path, history::Access::read_write); }
  EXPECT_EQ(history::network_filesystem_of(tmp.path), "") << "the test's directory is local";
  std::ifstream f(tmp.path, std::ios::binary);
  char header[20] = {};
  f.read(header, sizeof header);
  EXPECT_EQ(header[18], 2) << "WAL: file format write version 2";
}

TEST(HistoryFilesystem, ADatabaseOnANetworkFilesystemKeepsTheRollbackJournal) {
  TempDb tmp;
  history::filesystem_type_probe = nfs;
  try {
    history::Database db(tmp.path, history::Access::read_write);
    db.import_document(document("nfs-run", "complete"), "dir/nfs-run");
  } catch (...) {
    history::filesystem_type_probe = history::filesystem_type;
    throw;
  }
  history::filesystem_type_probe = history::filesystem_type;
  std::ifstream f(tmp.path, std::ios::binary);
  char header[20] = {};
  f.read(header, sizeof header);
  EXPECT_EQ(header[18], 1) << "rollback journal: file format write version 1, not WAL's 2";
  EXPECT_NE(::access((tmp.path + "-wal").c_str(), F_OK), 0) << "no -wal file";
  history::Database reader(tmp.path, history::Access::read_only);
  EXPECT_EQ(history::select_runs(reader, {}).size(), 1u);
}

} // namespace
} // namespace miniapp
