#include "report/scaling.hpp"

#include "core/backend_names.hpp"
#include "core/text.hpp"
#include "report/html_report.hpp"
#include "compare/pooling.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <sstream>
#include <tuple>

namespace miniapp {
namespace report {

namespace {

struct SeriesKey {
  std::string system;
  std::size_t position;
  std::string kind; // family/variant/precision
  bool operator<(const SeriesKey& o) const {
    return std::tie(system, position, kind) < std::tie(o.system, o.position, o.kind);
  }
};

// A point's resource (report/scaling.hpp): GPUs for a device backend (ranks x devices per rank,
// 1 where not recorded), else host cores (ranks x threads per rank, ranks where not recorded).
void set_resource(ScalingRow& row, const compare::Run& run) {
  row.gpus = !host_backend(run.backend);
  const auto& md = run.metadata;
  const auto devices = md.is_object() ? md.find("devices_per_rank") : md.end();
  const int per_device =
      devices != md.end() && devices->is_number_integer() && devices->get<int>() > 0
          ? devices->get<int>()
          : 1;
  row.per_rank = row.gpus ? per_device : std::max(0, run.threads);
  row.resource = double(row.ranks) * double(std::max(1, row.per_rank));
}

// "1 x 2 = 2" (ranks x threads), "2 GPUs"; the ranks alone where the threads are unknown.
std::string resource_text(const ScalingRow& r) {
  if (r.gpus)
    return fmt("%.0f", r.resource) + (r.resource == 1 ? " GPU" : " GPUs");
  if (r.per_rank <= 0)
    return std::to_string(r.ranks) + " x ? threads";
  return std::to_string(r.ranks) + " x " + std::to_string(r.per_rank) + " = " +
         fmt("%.0f", r.resource);
}

} // namespace

std::string scaled_resource(const std::vector<ScalingRow>& rows) {
  const bool gpus =
      std::any_of(rows.begin(), rows.end(), [](const ScalingRow& r) { return r.gpus; });
  const bool cores =
      std::any_of(rows.begin(), rows.end(), [](const ScalingRow& r) { return !r.gpus; });
  return gpus && cores ? "ranks x threads or GPUs" : gpus ? "GPUs" : "ranks x threads";
}

std::vector<ScalingRow> scaling_rows(const std::vector<ScalingPoint>& points, bool weak) {
  std::map<SeriesKey, std::vector<ScalingRow>> series;
  for (const ScalingPoint& p : points) {
    if (p.ranks < 1) // no time per rank, no efficiency (the state's counts are checked on reading)
      continue;
    for (std::size_t i = 0; i < p.run.rows.size(); ++i) {
      const compare::Row& r = p.run.rows[i];
      if (r.valid == "false" || !(r.time_median > 0) || !std::isfinite(r.time_median))
        continue;
      const SeriesKey key{p.system, i, r.family + "/" + r.variant + "/" + r.precision};
      auto& rows = series[key];
      if (std::any_of(rows.begin(), rows.end(), [&](const ScalingRow& x) {
            return x.nodes == p.nodes && x.ranks == p.ranks;
          }))
        continue; // the same point twice (a resubmitted job's directory): the first counts
      ScalingRow row;
      row.system = p.system;
      row.case_label = r.case_id.empty() ? key.kind : r.case_id;
      row.nodes = p.nodes;
      row.ranks = p.ranks;
      row.ranks_per_node = p.nodes > 0 ? p.ranks / p.nodes : p.ranks;
      set_resource(row, p.run);
      row.seconds = r.time_median;
      row.marks = compare::marks_of(r, p.run.host_cpus);
      rows.push_back(row);
    }
  }
  std::vector<ScalingRow> out;
  for (auto& [key, rows] : series) {
    std::sort(rows.begin(), rows.end(), [](const ScalingRow& a, const ScalingRow& b) {
      return std::tie(a.resource, a.ranks, a.nodes) < std::tie(b.resource, b.ranks, b.nodes);
    });
    const ScalingRow base = rows.front();
    for (ScalingRow& r : rows) {
      r.case_label = base.case_label;
      r.efficiency_marks = r.marks | base.marks;
      r.efficiency = weak ? base.seconds / r.seconds
                          : (base.seconds * base.resource) / (r.seconds * r.resource);
      out.push_back(r);
    }
  }
  return out;
}

std::string scaling_svg(const std::vector<ScalingRow>& rows, bool weak) {
  double max_resource = 1;
  double t_lo = 1e300, t_hi = 0, e_hi = 1.2;
  std::vector<std::pair<std::string, std::vector<const ScalingRow*>>> lines;
  for (const ScalingRow& r : rows) {
    max_resource = std::max(max_resource, r.resource);
    t_lo = std::min(t_lo, r.seconds);
    t_hi = std::max(t_hi, r.seconds);
    e_hi = std::max(e_hi, std::min(r.efficiency * 1.1, 4.0));
    const std::string name = r.system + ": " + r.case_label;
    if (lines.empty() || lines.back().first != name)
      lines.push_back({name, {}});
    lines.back().second.push_back(&r);
  }
  if (rows.empty())
    return "";
  t_lo /= 1.5;
  t_hi *= 1.5;
  const double panel_w = 360, panel_h = 240, left = 70, top = 40, gap = 90;
  Marks ringed; // every mark a point of either panel carries: the legend names them
  for (const ScalingRow& r : rows)
    ringed |= r.efficiency_marks;
  const double legend_h = 16.0 * double(lines.size() + (ringed.any() ? 1 : 0)) + 20;
  const double w = left + 2 * panel_w + gap + 30, h = top + panel_h + 50 + legend_h;
  const double xr = std::log2(std::max(2.0, max_resource));
  const auto x_of = [&](double x0, double p) { return x0 + panel_w * std::log2(p) / xr; };
  const auto y_time = [&](double t) {
    return top + panel_h * (1 - std::log(t / t_lo) / std::log(t_hi / t_lo));
  };
  const auto y_eff = [&](double e) { return top + panel_h * (1 - std::min(e, e_hi) / e_hi); };
  std::ostringstream os;
  os << "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 " << fmt("%.0f", w) << " "
     << fmt("%.0f", h) << "\" width=\"" << fmt("%.0f", w) << "\" height=\"" << fmt("%.0f", h)
     << "\" font-family=\"DejaVu Sans, sans-serif\" font-size=\"12\" id=\"scaling-plot\">\n"
     << "<title>" << (weak ? "Weak" : "Strong") << " scaling: time and efficiency against "
     << scaled_resource(rows)
     << "</title>\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  const double x0s[2] = {left, left + panel_w + gap};
  for (int panel = 0; panel < 2; ++panel) {
    const double x0 = x0s[panel];
    os << "<rect x=\"" << fmt("%.1f", x0) << "\" y=\"" << fmt("%.1f", top) << "\" width=\""
       << fmt("%.1f", panel_w) << "\" height=\"" << fmt("%.1f", panel_h)
       << "\" fill=\"none\" stroke=\"#444\"/>\n";
    os << "<text x=\"" << fmt("%.1f", x0 + panel_w / 2) << "\" y=\"" << fmt("%.1f", top - 12)
       << "\" text-anchor=\"middle\">"
       << (panel == 0 ? "median kernel time (s, log)" : "parallel efficiency") << "</text>\n";
    // 64 bits: an int doubling past 2^30 wrapped to 0 and never passed the largest (a loop without
    // end, the page growing ~60 MB/s, for a point of 2^30 ranks).
    for (std::int64_t p = 1; double(p) <= max_resource; p *= 2)
      os << "<text x=\"" << fmt("%.1f", x_of(x0, double(p))) << "\" y=\""
         << fmt("%.1f", top + panel_h + 16) << "\" text-anchor=\"middle\">" << p << "</text>\n";
    os << "<text x=\"" << fmt("%.1f", x0 + panel_w / 2) << "\" y=\""
       << fmt("%.1f", top + panel_h + 34) << "\" text-anchor=\"middle\">" << scaled_resource(rows)
       << "</text>\n";
    if (panel == 0) {
      for (double t : {t_lo * 1.5, std::sqrt(t_lo * t_hi), t_hi / 1.5})
        os << "<text x=\"" << fmt("%.1f", x0 - 6) << "\" y=\"" << fmt("%.1f", y_time(t) + 4)
           << "\" text-anchor=\"end\">" << fmt("%.3g", t) << "</text>\n";
    } else {
      for (double e : {0.0, 0.5, 1.0})
        os << "<text x=\"" << fmt("%.1f", x0 - 6) << "\" y=\"" << fmt("%.1f", y_eff(e) + 4)
           << "\" text-anchor=\"end\">" << fmt("%.1f", e) << "</text>\n"
           << "<line x1=\"" << fmt("%.1f", x0) << "\" x2=\"" << fmt("%.1f", x0 + panel_w)
           << "\" y1=\"" << fmt("%.1f", y_eff(e)) << "\" y2=\"" << fmt("%.1f", y_eff(e))
           << "\" stroke=\"#ddd\"/>\n";
    }
    for (std::size_t i = 0; i < lines.size(); ++i) {
      const char* c = series_colour(i);
      std::string pts;
      for (const ScalingRow* r : lines[i].second) {
        const double x = x_of(x0, r->resource),
                     y = panel == 0 ? y_time(r->seconds) : y_eff(r->efficiency);
        pts += fmt("%.1f", x) + "," + fmt("%.1f", y) + " ";
        os << "<circle class=\"point\" cx=\"" << fmt("%.1f", x) << "\" cy=\"" << fmt("%.1f", y)
           << "\" r=\"3.5\" fill=\"" << c << "\"/>\n";
        if ((panel == 0 ? r->marks : r->efficiency_marks).any()) // ringed as miniapp-plot rings
          os << "<circle class=\"marked\" cx=\"" << fmt("%.1f", x) << "\" cy=\"" << fmt("%.1f", y)
             << "\" r=\"7\" fill=\"none\" stroke=\"red\" stroke-width=\"1.6\"/>\n";
      }
      os << "<polyline class=\"series\" fill=\"none\" stroke=\"" << c
         << "\" stroke-width=\"2\" points=\"" << pts << "\"/>\n";
    }
  }
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const double y = top + panel_h + 56 + 16.0 * double(i);
    os << "<rect x=\"" << fmt("%.1f", left) << "\" y=\"" << fmt("%.1f", y - 9) << "\" width=\"12\" "
       << "height=\"10\" fill=\"" << series_colour(i) << "\"/>\n<text x=\""
       << fmt("%.1f", left + 18) << "\" y=\"" << fmt("%.1f", y) << "\">"
       << html_escape(lines[i].first) << "</text>\n";
  }
  if (ringed.any()) {
    const double y = top + panel_h + 56 + 16.0 * double(lines.size());
    std::string names;
    for (const std::string& n : mark_names(ringed))
      names += (names.empty() ? "" : ", ") + n;
    os << "<circle cx=\"" << fmt("%.1f", left + 6) << "\" cy=\"" << fmt("%.1f", y - 4)
       << "\" r=\"6\" fill=\"none\" stroke=\"red\" stroke-width=\"1.6\"/>\n<text x=\""
       << fmt("%.1f", left + 18) << "\" y=\"" << fmt("%.1f", y) << "\">ringed: marked " << names
       << "</text>\n";
  }
  os << "</svg>\n";
  return os.str();
}

std::string scaling_section(const std::vector<ScalingPoint>& points, bool weak) {
  const std::vector<ScalingRow> rows = scaling_rows(points, weak);
  std::ostringstream os;
  os << "<section id=\"scaling\">\n<h2>" << (weak ? "Weak" : "Strong") << " scaling</h2>\n"
     << "<p class=\"legend\">Median kernel time of each case at each point of the study, per "
        "system, and the parallel efficiency against the system's point with the fewest "
     << scaled_resource(rows) << ": "
     << (weak ? "T<sub>1</sub> / T (weak scaling: the same block per rank, so the time should "
                "stay)"
              : "T<sub>1</sub> P<sub>1</sub> / (T P) (strong scaling: the same problem on more "
                "of the resource; P is what was scaled: host cores, ranks x threads per rank, or "
                "GPUs, ranks x devices per rank)")
     << ".</p>\n";
  if (rows.empty()) {
    os << "<p class=\"note\">No point has valid results yet.</p>\n</section>\n";
    return os.str();
  }
  os << "<div class=\"plots\"><figure><figcaption>scaling</figcaption>" << scaling_svg(rows, weak)
     << "</figure></div>\n"
     << "<table id=\"scaling-table\">\n<tr><th>system</th><th>case</th><th>nodes</th>"
        "<th>ranks per node</th><th>ranks</th><th>"
     << scaled_resource(rows) << "</th><th>time (ms)</th><th>efficiency by "
     << scaled_resource(rows) << "</th></tr>\n";
  Marks shown;
  for (const ScalingRow& r : rows) {
    os << "<tr class=\"scaling-row\"><td>" << html_escape(r.system) << "</td><td>"
       << html_escape(r.case_label) << "</td><td>" << r.nodes << "</td><td>" << r.ranks_per_node
       << "</td><td>" << r.ranks << "</td><td>" << resource_text(r) << "</td><td>"
       << fmt("%.4g", r.seconds * 1e3) << marks_html(r.marks) << "</td><td>"
       << (r.efficiency < 0 ? std::string("-")
                            : fmt("%.2f", r.efficiency) + marks_html(r.efficiency_marks))
       << "</td></tr>\n";
    shown |= r.efficiency_marks;
  }
  os << "</table>\n";
  if (shown.any())
    os << "<p class=\"legend\">" << html_escape(marks_legend(shown)) << "</p>\n";
  os << "</section>\n";
  return os.str();
}

} // namespace report
} // namespace miniapp
