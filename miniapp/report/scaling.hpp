#pragma once
// A study's scaling (docs/jobs.md, "Studies"): each case's median kernel time at every point of
// a system, and its parallel efficiency against the point with the fewest resources:
//   strong  E = (T_1 * P_1) / (T * P)   (the same problem on more of the resource)
//   weak    E = T_1 / T                 (the same block per rank: the time should stay)
// where P is the resource scaled: a host backend's cores, ranks x threads per rank (1 rank x 2
// threads and 2 ranks x 1 thread are the same 2 cores), a device backend's GPUs, ranks x devices
// per rank; ranks alone where a run does not record its threads. Drawn as inert inline SVG (time
// and efficiency against the resource, one line per system and case)
// with a table under it, whose times are marked (busy) where the host was busy around the case,
// as in the comparison. Every text from results files is escaped.
#include "compare/compare.hpp"

#include <string>
#include <vector>

namespace miniapp {
namespace report {

struct ScalingPoint {
  std::string system; // the profile's name
  int nodes = 1, ranks = 1;
  compare::Run run; // the point's results
};

struct ScalingRow {
  std::string system, case_label; // case_label: the case id at the system's fewest resources
  int nodes = 1, ranks = 1;
  int ranks_per_node = 1; // ranks / nodes: a study's point is nodes x ranks per node
  int per_rank = 0;       // host threads (host backends) or devices (GPUs) per rank; 0 unknown
  bool gpus = false;      // the resource is GPUs, else host cores (ranks x threads)
  double resource = 1;    // ranks x per_rank (ranks where per_rank is unknown)
  double seconds = 0;     // median kernel time
  double efficiency = -1; // < 0 where the base time is missing
  Marks marks;            // the row's (core/marks.hpp): its time's
  Marks efficiency_marks; // its own and the base row's: the efficiency is a ratio of the two
};

// Cases are matched by their position in the run (a weak point's sizes differ, its case list
// does not) and their family/variant/precision; rows without a valid positive time are left out.
std::vector<ScalingRow> scaling_rows(const std::vector<ScalingPoint>& points, bool weak);
// What the rows scaled, for the table's header and the axis: "ranks x threads", "GPUs", or both.
std::string scaled_resource(const std::vector<ScalingRow>& rows);
std::string scaling_svg(const std::vector<ScalingRow>& rows, bool weak);
// <section id="scaling">: the legend, the figure and the table.
std::string scaling_section(const std::vector<ScalingPoint>& points, bool weak);

} // namespace report
} // namespace miniapp
