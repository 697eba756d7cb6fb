#pragma once
// The performance-portability figures of the report (compare/portability.hpp computes the
// numbers), drawn here as inert inline SVG (no script, no external reference):
//   cascade   one problem: for each application, its efficiencies on the platforms sorted from
//             the most to the least efficient (solid) and the PP over the first k of them
//             (dashed), the cascade plot of Sewall et al. ("Interpreting and visualizing
//             performance portability metrics", P3HPC 2020); under it, which platform sits at
//             each position (its colour and number);
//   heat map  every problem and application (rows) against every platform (columns): the cell's
//             colour is the application efficiency, its text both efficiencies; the last column
//             is PP.
// Every text from results files is escaped.
#include "compare/portability.hpp"

#include <string>

namespace miniapp {
namespace report {

// The problems of p in their order (p.scores is sorted by problem).
std::vector<std::string> portability_problems(const compare::Portability& p);
std::string cascade_svg(const compare::Portability& p, const std::string& problem);
std::string efficiency_heat_map_svg(const compare::Portability& p);

// The report's section: what the numbers mean, the heat map, and one cascade per problem (at most
// kMaxCascades; a note names how many more `miniapp compare --table portability` lists).
constexpr std::size_t kMaxCascades = 12;
std::string portability_section(const compare::Portability& p);

} // namespace report
} // namespace miniapp
