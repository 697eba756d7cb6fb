#pragma once
// One row of a results.json or results.csv as compare reads it (results/row.cpp).
#include "results/run.hpp"

#include <nlohmann/json.hpp>

namespace miniapp {
namespace compare {

// The row's keys typed through the results table (schema 1's floats, CSV text and schema 2's typed
// values alike), unknown keys skipped, nulls left out; then the members compare uses.
Row row_from(const nlohmann::json& o);

} // namespace compare
} // namespace miniapp
