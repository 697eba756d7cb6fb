#pragma once
// `miniapp report`: one self-contained static HTML page about a comparison of runs, to share by
// mail or put on a web server: the comparison table with the marks compare computed, the plots
// as inline SVG, the runs' metadata side by side with the differences from the baseline
// highlighted, the warnings, and the command that reproduces each run. No network, no script.
// Every text from a results file is untrusted input and is HTML-escaped.
#include "compare/compare.hpp"

#include <string>
#include <vector>

namespace miniapp {
namespace report {

struct Plot {
  std::string name; // file stem, e.g. "rate-axpby"
  std::string svg;  // the <svg> element (inline_svg), inserted as markup
};

struct ReportOptions {
  std::string title = "miniapp report";
  std::string generated; // when the page was made (shown under the title)
  std::vector<Plot> plots;
  std::string plots_note; // why there are no (or fewer) plots; shown when not empty
  // A study's scaling section (report/scaling.hpp): markup whose every text is escaped where it
  // was made; shown before the comparison. Empty for `miniapp report`.
  std::string scaling_section;
};

// Colour i of the report's figures (matplotlib's tab10, the plot script's palette, repeating
// after 10): series i of the scaling plot and platform i of the portability figures.
const char* series_colour(std::size_t i);

// A figure's marks (core/marks.hpp) as the tables show them: " (busy) (disturbed)", or "".
std::string marks_html(const Marks& m);

// &, <, >, " and ' as entities: safe in element text and in quoted attribute values.
std::string html_escape(const std::string& s);

// The <svg> element of an SVG file, without the XML prolog and doctype (they are not allowed
// inside HTML). "" when the text holds no <svg> element or anything that could run (a script, an
// event handler, a foreignObject): the plots come from our own script, but their labels come from
// results files.
std::string inline_svg(const std::string& file_text);

// One line of the side-by-side metadata table.
struct MetadataRow {
  std::string name;
  std::vector<std::string> values; // per run; "" unknown
  std::vector<bool> differs;       // per run: known and unlike the baseline's known value
};
// `runs` are the runs as loaded (with their rows, counted here); c.runs without them.
std::vector<MetadataRow> metadata_rows(const compare::Comparison& c,
                                       const std::vector<compare::Run>& runs);

// The shell command that reproduces a run, from its recorded environment (OMP_*, KOKKOS_*, GPU
// lists) and argv, each word quoted where the shell would read it otherwise. "" when the run
// recorded neither argv nor its config path (results from before they were recorded).
std::string reproduce_command(const compare::Run& run);

std::string html_report(const compare::Comparison& c, const std::vector<compare::Run>& runs,
                        const ReportOptions& opt);

} // namespace report
} // namespace miniapp
