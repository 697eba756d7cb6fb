#pragma once
// Stage 4 of config -> plan -> run -> report: the run directory with results.csv and
// results.json. Both files are rewritten completely after each case under a temporary name and
// renamed into place, so a reader never sees a partial file and an interrupted run keeps every
// completed row (results.json then says "complete": false). When even that fails (a full disk),
// the final status is written over the last good results.json in place: every results.json is
// written with spare trailing whitespace for it, so this needs no new disk blocks.
#include "plan/plan.hpp"
#include "results/result_fields.hpp"
#include "core/result.hpp"
#include "results/resume.hpp"

#include "core/files.hpp"
#include "core/sinks.hpp" // csv_escape

#include <nlohmann/json.hpp>

#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

namespace miniapp {

// <base>/<name>-<UTC timestamp>[-job<SLURM_JOB_ID>], with -2, -3, ... when taken; an explicit
// directory must not exist yet (a trailing '/' is allowed). Throws std::runtime_error otherwise.
std::string create_run_directory(const std::string& base, const std::string& name,
                                 const std::string& explicit_dir);

// The run's state as results.json records it ("status"): running until finish().
enum class RunStatus { running, complete, interrupted, failed };
const char* to_string(RunStatus s);

class ResultsWriter {
public:
  // Writes the first results.json ("running"); on failure removes what it made and throws.
  // Resuming (`run --resume`), dir is the earlier run's: its kept rows are written with the new
  // ones in plan order, and nothing of it is removed on failure.
  ResultsWriter(std::string dir, const Plan& plan, nlohmann::json metadata,
                const ResumeState& resume = ResumeState{});
  ~ResultsWriter();
  void add(const CaseResult& r); // throws std::runtime_error when the files cannot be written
  // The index-th row added, again (a later round pooled into it: `miniapp run --rounds`).
  void update(std::size_t index, const CaseResult& r);
  // complete | interrupted | failed. Never throws: returns "" or what went wrong, in which case
  // results.json holds the last rows with status "failed" ("interrupted" stays).
  std::string finish(RunStatus status) noexcept;
  const std::string& directory() const { return dir_; }
  // every results.json document just before it is written (`run --db` records it;
  // app/run_extras.hpp). It runs before the write, so a row on disk is already in the database.
  std::function<void(nlohmann::json& doc)> before_write;

private:
  void write_files(bool complete);
  void write_final_in_place(RunStatus status, const std::string& error) noexcept;
  std::string dir_;
  const Plan& plan_;
  nlohmann::json metadata_;
  std::vector<CaseResult> rows_;
  std::vector<nlohmann::json> kept_; // rows of the run resumed (results.json's objects)
  RunStatus status_ = RunStatus::running;
  nlohmann::json on_disk_;       // the last results.json written, as written
  std::size_t on_disk_size_ = 0; // its size in bytes (padding included)
};

} // namespace miniapp
