// libFuzzer target: a history database file (history/db.cpp), corrupt or hostile. The
// input is written to a scratch file and opened as `miniapp history` opens it (read-only: history
// and select_runs) and as `miniapp db import` does (read-write: a results document imported, then
// read back; each selected run written as the JSON `history --plot` hands the plot script).
// history::InputError (not a miniapp history database) and history::DbError are the
// expected answers to a bad file; any other exception, a crash, a leak, a hang or unbounded
// memory is a finding (docs/testing.md).
#include "history/db.hpp"
#include "results/metadata.hpp"
#include "results/run_json.hpp"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <unistd.h>

namespace {

namespace history = miniapp::history;

const std::string& scratch_path() {
  static const std::string path = [] {
    const char* tmp = std::getenv("TMPDIR");
    return std::string(tmp && *tmp ? tmp : "/tmp") + "/miniapp-fuzz-history-" +
           std::to_string(::getpid()) + ".db";
  }();
  return path;
}

void remove_scratch() {
  for (const char* suffix : {"", "-wal", "-shm", "-journal"})
    std::remove((scratch_path() + suffix).c_str());
}

// One small run, as `miniapp run` writes results.json (schema 2).
const nlohmann::json& document() {
  static const nlohmann::json doc = nlohmann::json::parse(R"json({
  "schema_version": 2, "status": "complete", "complete": true, "config": {"name": "fuzz"},
  "metadata": {"run_id": "fuzz-run", "host_name": "node01", "backend": "serial",
               "start_time": "2026-11-22T08:00:00Z"},
  "results": [{"case": 0, "case_id": "axpby/flat/float32/64x64/a=2,b=0.5", "family": "axpby",
               "variant": "flat", "precision": "float32", "m": 64, "n": 64, "status": "ok",
               "valid": true, "gbs": 12.5, "time_median_s": 1e-6}]})json");
  return doc;
}

void read_everything(history::Database& db) {
  db.history({});
  for (const auto& run : history::select_runs(db, {}))
    miniapp::json_text(miniapp::compare::to_results_json(run));
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  remove_scratch();
  if (std::FILE* f = std::fopen(scratch_path().c_str(), "wb")) {
    std::fwrite(data, 1, size, f);
    std::fclose(f);
  }
  try {
    history::Database db(scratch_path(), history::Access::read_only);
    read_everything(db);
  } catch (const history::InputError&) {
  } catch (const history::DbError&) {
  }
  try {
    history::Database db(scratch_path(), history::Access::read_write);
    db.import_document(document(), "fuzz-run");
    read_everything(db);
  } catch (const history::InputError&) {
  } catch (const history::DbError&) {
  }
  remove_scratch();
  return 0;
}
