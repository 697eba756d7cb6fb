#pragma once
// Performance references (issue 17): what a case is expected to reach on a system. A references
// file lists case patterns, each with an expected rate or percentage of the run's own measured
// ceiling and a lower tolerance; a row measuring less than expected x (1 - tolerance_pct/100) is
// "below" its reference. `miniapp run --references` and `miniapp compare --references` check rows
// against it and exit kBelowReference (5). The format is in docs/history.md.
#include "results/run.hpp"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace miniapp::references {

struct Reference {
  std::string where;   // file:line:col of the entry, for messages
  std::string pattern; // glob over the case id ('*' any text, '/' included; '?' one character)
  std::string backend; // glob; empty = any
  std::string device;  // glob; empty = any
  bool pct = false;    // true: expected is a percentage of the same run's ceiling
  std::string unit;    // rates: "GB/s" or "GFLOP/s"; empty = the row's unit (row_unit)
  double expected = 0;
  double tolerance_pct = 0;
};

struct References {
  std::string file;
  std::string description;
  std::vector<Reference> entries; // the first entry that matches a row is its reference
};

// Reads and checks a references file; throws config::ConfigError("file:line:col: message").
References load_references(const std::string& path);
References parse_references(const std::string& label, const std::string& text);
// The JSON Schema (draft-07) of references files, from the loader's own keys, units and bounds:
// `miniapp schema references`, for editors and validators (docs/config.md, "Editing configs").
nlohmann::json references_schema();

enum class Status { none, met, below };
const char* to_string(Status s);

struct Check {
  Status status = Status::none;
  double expected = 0;  // the reference's figure
  double threshold = 0; // expected x (1 - tolerance)
  double measured = 0;
  std::string unit; // "GB/s", "GFLOP/s" or "% of ceiling"
  const Reference* ref = nullptr;
};

// The unit a row is judged by when a reference does not name one: the family table's rate, as
// `miniapp compare` judges it (GFLOP/s for compute-bound families, GB/s for the others).
std::string row_unit(const std::string& family);
// The case id of a loaded row ("axpby/flat/float32/4096x4096/a=2,b=0.5"), as plan's Case::id()
// writes it from the row's parameters: what reference patterns and `history --case` match.
std::string case_id(const compare::Row& row);
// rate / same-run ceiling in percent; < 0 when the row has no ceiling in the rate's unit.
double pct_of_ceiling(const compare::Row& row);
// fnmatch(3) without FNM_PATHNAME: '*' matches '/' too, so "axpby/*" matches every axpby case.
bool glob_match(const std::string& pattern, const std::string& text);

// Checks one row of a run (rows that are not "ok" have no reference: they measured nothing).
Check check(const References& refs, const compare::Run& run, const compare::Row& row);

// "axpby/flat/float32/128x128/a=2,b=0.5: 12.3 GB/s, below the reference 20 GB/s (-10%: 18
// GB/s; refs.yaml:4:5)".
std::string describe(const Check& c, const std::string& case_name);

} // namespace miniapp::references
