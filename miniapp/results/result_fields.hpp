#pragma once
// Every results column, in order, one row each: the results.csv header and cells and the
// results.json rows are written from this table, and `miniapp compare` reads results files back
// through it. The case parameters are core/case_fields.hpp's rows; the measured values are here.
// A new column is one row in one of the two tables (appended, so readers by position keep working).
#include "core/case_fields.hpp"
#include "plan/plan.hpp"
#include "core/result.hpp"

#include <nlohmann/json.hpp>

#include <functional>
#include <string>
#include <vector>

namespace miniapp {

// results.json "schema_version": 1 wrote every value through its CSV text (integers as floats,
// 6 significant digits, unused parameters as 0); 2 writes typed values (see docs/config.md).
constexpr int kResultsSchemaVersion = 2;

// What a row needs besides its case's result.
struct RowContext {
  const Plan& plan;
  int ranks = 1;
};

struct ResultField {
  std::string name; // results.csv column, results.json key
  FieldType type;   // number_list: results.json only
  std::function<nlohmann::json(const CaseResult&, const RowContext&)> get; // null: no value
};

const std::vector<ResultField>& result_fields();
std::vector<std::string> csv_columns(); // the names of the fields that are CSV columns
bool in_csv(const ResultField& f);

// One results.json row (every field, typed; null where a parameter does not apply).
nlohmann::json result_json(const CaseResult& r, const RowContext& ctx);
// One results.csv row: the JSON value's text (integers as integers, doubles shortest-exact as
// results.json writes them, true/false), null as an empty cell.
std::vector<std::string> csv_row(const CaseResult& r, const Plan& plan, int ranks);
std::string csv_text(const nlohmann::json& v);

} // namespace miniapp
