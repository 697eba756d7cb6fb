#pragma once
// Stage 4 of config -> plan -> run -> report: the run directory with results.csv and
// results.json. Both files are rewritten completely after each case under a temporary name and
// renamed into place, so a reader never sees a partial file and an interrupted run keeps every
// completed row (results.json then says "complete": false).
#include "plan/plan.hpp"
#include "run/runner.hpp"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace miniapp {

// <base>/<name>-<UTC timestamp>[-job<SLURM_JOB_ID>], with -2, -3, ... when taken; an explicit
// directory must not exist yet. Throws std::runtime_error otherwise.
std::string create_run_directory(const std::string& base, const std::string& name,
                                 const std::string& explicit_dir);

class ResultsWriter {
public:
  ResultsWriter(std::string dir, const Plan& plan, nlohmann::json metadata);
  void add(const CaseResult& r);
  void finish(const std::string& status); // complete | interrupted | failed
  const std::string& directory() const { return dir_; }

private:
  void write_files(bool complete);
  std::string dir_;
  const Plan& plan_;
  nlohmann::json metadata_;
  std::vector<CaseResult> rows_;
  std::string status_ = "running";
};

std::vector<std::string> csv_columns();
std::vector<std::string> csv_row(const CaseResult& r, const Plan& plan, int ranks);
void write_file_atomically(const std::string& path, const std::string& content);
std::string csv_escape(const std::string& field); // RFC 4180 quoting where needed

} // namespace miniapp
