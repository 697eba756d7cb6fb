#pragma once
// A case's values against its precision: what the kernel forms from its inputs must fit, and an
// explicit matrix (init: explicit) must have the case's shape and hold values of its precision.
// Both throw config::ConfigError at the position of the value in error.
#include "config/config.hpp"
#include "core/case.hpp"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace miniapp {

// What the kernel forms from its inputs (the family table's result bounds) must fit the case's
// precision; checked before the run. pos_of: where an error about a key points.
void check_value_range(const Case& c, const config::Position& size_pos,
                       const std::function<config::Position(const std::string&)>& pos_of);

// An explicit matrix checked against the case's shape and precision.
std::vector<std::vector<double>> matrix_values(const config::Matrix& m, const std::string& what,
                                               std::int64_t rows, std::int64_t cols,
                                               Precision precision);

} // namespace miniapp
