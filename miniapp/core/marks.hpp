#pragma once
// The marks a result row carries wherever it is shown (issue 41): the console, results.csv/json,
// `compare` (every table, --table paper1), `report` (tables, plots, portability, cascades,
// scaling), `plot` and `history`. row_marks() is the one rule that decides them; every output asks
// it (for a row read back, through results/run.hpp's marks_of), and a figure made from several
// rows (a ratio, a speedup, an efficiency) carries the marks of each.
#include <string>
#include <vector>

namespace miniapp {

struct CaseResult;

struct Marks {
  bool busy = false;      // other work ran beside the case (core/host_load.hpp's case_busy)
  bool disturbed = false; // its ceiling, re-checked after the case, had moved (run/ceilings.hpp)
  bool uncertain =
      false; // its ceiling never settled, or its level stayed slower than a farther one
  bool any() const { return busy || disturbed || uncertain; }
  // A figure computed from two rows is marked as both are.
  Marks& operator|=(const Marks& o);
};
Marks operator|(Marks a, const Marks& b);

// The one rule. Busy: core/host_load.hpp's case_busy (host_others, else host_load against
// host_cpus; both unknown: not marked); ceiling_high > 0: the ceiling is uncertain (results'
// ceiling_low/ceiling_high).
Marks row_marks(double host_others, double host_load, int host_cpus, bool ceiling_disturbed,
                double ceiling_high);
// A row of this run, on this host.
Marks marks_of(const CaseResult& r, int host_cpus);

// After a figure in a table or a legend entry: " (busy)", " (disturbed)", " (uncertain ceiling)"
// in that order; "" for an unmarked row.
std::string marks_text(const Marks& m);
// The marks' names in that order ("busy", "disturbed", "uncertain ceiling"): the plot table's
// lists; and joined by ';' for a CSV cell ("busy;disturbed"; "" for an unmarked row).
std::vector<std::string> mark_names(const Marks& m);
std::string marks_csv(const Marks& m);
// One sentence for each mark that `shown` holds, each starting with its mark as marks_text writes
// it; "" when none is shown (a table of unmarked rows carries no legend).
std::string marks_legend(const Marks& shown);

} // namespace miniapp
