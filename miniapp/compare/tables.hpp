#pragma once
// The outputs of `miniapp compare` (compare/compare.hpp joins the runs): the markdown table, the
// CSV, and the paper's Table 1. The HTML report (report/html_report.hpp) prints its numbers with
// the same functions.
#include "compare/compare.hpp"

#include <string>
#include <vector>

namespace miniapp {
namespace compare {

// The case column of the tables: the case id where the rows were joined on it, else
// family/variant/precision (size and tile have their own columns).
std::string case_label(const Line& l);

// Numbers as the tables print them (markdown and the HTML report): a rate with three or more
// significant digits, seconds as milliseconds with four.
std::string rate_str(double v);
std::string ms(double seconds);

// A cell's energy: "512 W, 101 GFLOP/s/W" (the rate per watt where the row has a rate), "-"
// where it was not measured; and a run's distinct reasons for its unmeasured cells.
std::string energy_text(const Cell& cell);
std::vector<std::string> energy_notes(const Comparison& c, std::size_t run);
// The reason given for the cells of a results file written before energy was recorded.
inline constexpr const char* kBeforeEnergyNote =
    "no energy fields (a results file written before miniapp recorded energy)";

std::string to_markdown(const Comparison& c);
// Cell text safe inside a markdown table: | escaped, line breaks joined, HTML characters as
// entities (metadata comes from files and must not inject rows, links or markup).
std::string markdown_cell(const std::string& s);
std::string to_csv(const Comparison& c);

// The paper's Table 1 (R = a*A + b*B, axpby/flat/float32, square N): N, CPU time and GFLOPS,
// GPU time and GFLOPS, speedup. Time is the median total time (h2d + compute + d2h). cpu is
// runs[0]; gpu is runs[1] when given, else its columns read "pending".
std::string paper_table1_markdown(const std::vector<Run>& runs,
                                  std::vector<std::string>* warnings = nullptr);

} // namespace compare
} // namespace miniapp
