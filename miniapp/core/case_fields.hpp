#pragma once
// The case parameters, one row each: the case id (Case::id), the results columns
// (results/result_fields.hpp), the expanded config echoed in results.json, the config keys of a
// case with their types and bounds (config/keys.cpp, config/schema.cpp, the loader), the plan's
// assignment (plan/plan.cpp), the config hash, compare's rows and `miniapp list` all read this
// table, so a new parameter is one row here, the variants that read it in the family table
// (kernels/families.cpp), and the kernel that uses it.
#include "core/case.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

namespace miniapp {

// The type a value is written with (results.json keeps it; results.csv writes its text) and read
// back as (from CSV text, or from schema-1 files that stored every number as a float). A
// number_list (every repetition's time) is in results.json only.
enum class FieldType { integer, number, text, boolean, number_list };

struct CaseField {
  const char* name; // results column, results.json key and config key
  FieldType type;
  // The variant-specific parameter this is (written as null where the case does not use it);
  // Param{} for parameters every case has.
  Param param;
  // Its value in the case; nullptr: an integer kept in Case::table_params by name (a parameter
  // that needs no member of Case: its row, its variants and its kernel are all that name it).
  nlohmann::json (*get)(const Case&);
  // Its part of Case::id(), appended in table order; nullptr: not part of the id, except for a
  // table parameter, whose piece is "/<name>=<value>" where the value is not the default.
  void (*id)(std::ostream&, const Case&);
  bool column; // a results column; false: only in results.json's config.cases
  // --- the config key of a case (config/keys.cpp, config/schema.cpp, plan/plan.cpp) ---
  bool sweep = false; // a key of a case whose value may be a list (a sweep)
  // Integer keys: the bounds the plan checks (config/limits.hpp); max 0: no upper bound.
  std::int64_t min = 0, max = 0;
  bool takes_auto = false; // 'auto' is a value (searched by run/autotune.hpp)
  // Sets the checked value (integer, number, boolean or text as the type says; "auto" for
  // 'auto'); nullptr for a table parameter, which is stored by name.
  void (*set)(Case&, const nlohmann::json&) = nullptr;
  // Its part of the config hash (plan/config_hash.cpp), appended in table order; nullptr for a
  // table parameter: " <name>=<value>" where not the default, so older configs keep their hash.
  void (*hash)(std::ostream&, const Case&) = nullptr;
  // A table parameter's default (the value every case that reads it starts from).
  std::int64_t default_value = 0;
  // What `miniapp list parameters` says of a value of 0 (left to the plan or the backend), e.g.
  // "auto"; nullptr: the value is shown.
  const char* unset_text = nullptr;
  // A tuning parameter: `miniapp list` shows its range, and compare's --ignore-param joins the
  // cases that differ in it, whose id segment starts with this ("/tile="); "": the range only
  // (its segment is inside another's); nullptr: neither. A table parameter is both, as "/<name>=".
  const char* id_segment = nullptr;
  // The outermost dimension of a case's sweep (the order cases have always been expanded in).
  bool swept_first = false;
  // A text key that takes one of these words (nullptr: any text, or names the plan checks).
  std::vector<std::string> (*words)() = nullptr;

  bool in_table() const { return get == nullptr; } // kept in Case::table_params
};

const std::vector<CaseField>& case_fields();
// The row of that name; nullptr when none.
const CaseField* find_case_field(const std::string& name);
// The Param bit of the row of that name (the family table names table parameters so); throws
// std::logic_error when no row has that name or the row is not a variant's parameter.
Param param_named(const std::string& name);

// The field's value for this case: null where the case's variant does not use the parameter.
nlohmann::json case_value(const CaseField& f, const Case& c);
// Sets the field from a typed value (as case_value gives it); null sets nothing.
void set_case_value(const CaseField& f, Case& c, const nlohmann::json& v);

// A value as read from a results file (CSV text, or JSON of any schema version) in the field's
// type: "" and null give null, 256.0 or "256" for an integer give 256, "true" gives true. What
// does not parse as the type gives null.
nlohmann::json typed_value(FieldType t, const nlohmann::json& v);

} // namespace miniapp
