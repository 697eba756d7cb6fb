#pragma once
// The kernel times' part of estimates.json (run/calibration_store.hpp), for its store only:
// {"case medians": {machine key: [[id, seconds, busy], ...]}}, oldest first.
#include "run/calibration_store.hpp"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace miniapp {

// Not a machine key: those hold '|' (calibration_machine_key).
inline constexpr const char* kCaseMediansKey = "case medians";

// The kernel times stored in `file` for `key` that read as such, one per id, oldest first: of the
// last kCaseMedians entries, each [id, seconds, busy] with a valid id and a time in range.
std::vector<CaseMedian> medians_of(const nlohmann::json& file, const std::string& key);

// The "case medians" object to write: `file`'s for kCaseMedianMachines - 1 other keys, and key's
// with `cases` merged in (newest per id, a busy time not replacing a quiet one), the newest
// kCaseMedians.
nlohmann::json case_medians_json(const nlohmann::json& file, const std::string& key,
                                 const std::vector<CaseMedian>& cases);

} // namespace miniapp
