#pragma once
// The case parameters as the results record them, one row each: the case id (Case::id), the
// results columns (report/result_fields.hpp), the expanded config echoed in results.json and the
// loader of `miniapp compare` all read this table, so a new parameter is one row here.
#include "core/case.hpp"

#include <nlohmann/json.hpp>

#include <ostream>
#include <vector>

namespace miniapp {

// The type a value is written with (results.json keeps it; results.csv writes its text) and read
// back as (from CSV text, or from schema-1 files that stored every number as a float). A
// number_list (every repetition's time) is in results.json only.
enum class FieldType { integer, number, text, boolean, number_list };

struct CaseField {
  const char* name; // results column and results.json key
  FieldType type;
  // The variant-specific parameter this is (written as null where the case does not use it);
  // Param{} for parameters every case has.
  Param param;
  nlohmann::json (*get)(const Case&);
  // Its part of Case::id(), appended in table order; nullptr: not part of the id.
  void (*id)(std::ostream&, const Case&);
  bool column; // a results column; false: only in results.json's config.cases
};

const std::vector<CaseField>& case_fields();

// The field's value for this case: null where the case's variant does not use the parameter.
nlohmann::json case_value(const CaseField& f, const Case& c);

// A value as read from a results file (CSV text, or JSON of any schema version) in the field's
// type: "" and null give null, 256.0 or "256" for an integer give 256, "true" gives true. What
// does not parse as the type gives null.
nlohmann::json typed_value(FieldType t, const nlohmann::json& v);

} // namespace miniapp
