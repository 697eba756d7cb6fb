#pragma once
// A config case's sweep: its lists and zip groups as dimensions, and the limit on how many cases
// the whole config expands to (plan/plan.cpp walks the dimensions).
#include "config/config.hpp"

#include <string>
#include <vector>

namespace miniapp {

// Dimensions of a case's sweep in a fixed order; a zip group is one dimension.
struct SweepDim {
  std::vector<std::string> keys;
  std::vector<std::vector<config::Value>> rows; // rows[i][j]: value of keys[j] in step i
};

// The dimensions of spec in config::sweep_keys() order; a case that names no variant sweeps all
// of its family's variants.
std::vector<SweepDim> sweep_dims(const config::CaseSpec& spec);

// The number of cases the sweeps expand to (the product of each case's lists, summed; before
// duplicates collapse) must stay within limits::kMaxCases, and the explicit matrices copied into
// them within limits::kMaxExpandedNodes values: checked before anything is expanded.
void check_expansion(const config::ExperimentConfig& cfg,
                     const std::vector<std::vector<SweepDim>>& all);

} // namespace miniapp
