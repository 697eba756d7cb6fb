#include "report/portability_svg.hpp"

#include "core/text.hpp"
#include "report/html_report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

namespace miniapp {
namespace report {

namespace {

using compare::Portability;
using compare::PpEntry;

// Applications take ColorBrewer's Dark2, so that their lines are not read as platforms.
const char* app_colour(std::size_t i) {
  static const char* const dark2[] = {"#1b9e77", "#d95f02", "#7570b3", "#e7298a",
                                      "#66a61e", "#e6ab02", "#a6761d", "#666666"};
  return dark2[i % 8];
}

// White (0) to dark blue (1), as matplotlib's "Blues".
std::string blue_scale(double t) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "#%02x%02x%02x", int(247 - t * 239), int(251 - t * 203),
                int(255 - t * 148));
  return buf;
}

std::string num(double v) {
  return fmt("%.1f", v);
}

std::size_t platform_index(const Portability& p, const std::string& platform) {
  return std::size_t(std::find(p.platforms.begin(), p.platforms.end(), platform) -
                     p.platforms.begin());
}

// An entry's efficiency in the figures: a failure counts as 0 (PP's rule).
double efficiency(const PpEntry& e, bool architectural) {
  return e.failed ? 0 : architectural ? e.arch_eff : e.app_eff;
}
// The figures draw the architectural efficiency where every platform's row of the problem has a
// ceiling: it compares the platforms with their own limits. The application efficiency (the
// default of the P3 library's cascades) is relative to the fastest application compared, so a
// problem with one application reads 1 everywhere.
bool architectural(const Portability& p, const std::string& problem) {
  return std::all_of(p.entries.begin(), p.entries.end(), [&](const PpEntry& e) {
    return e.problem != problem || e.failed || e.arch_eff >= 0;
  });
}

void text(std::ostringstream& os, double x, double y, const std::string& s,
          const char* anchor = "start", const char* extra = "") {
  os << "<text x=\"" << num(x) << "\" y=\"" << num(y) << "\" text-anchor=\"" << anchor << "\""
     << extra << ">" << html_escape(s) << "</text>\n";
}

// `s` in lines of at most `width` characters, broken at spaces (a longer word is a line of its
// own, whole): labels are never cut.
std::vector<std::string> wrapped(const std::string& s, std::size_t width) {
  std::vector<std::string> lines;
  std::istringstream words(s);
  for (std::string w; words >> w;) {
    if (!lines.empty() && lines.back().size() + 1 + w.size() <= width)
      lines.back() += " " + w;
    else
      lines.push_back(w);
  }
  return lines;
}

void open_svg(std::ostringstream& os, double w, double h, const std::string& title) {
  os << "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 " << num(w) << " " << num(h)
     << "\" width=\"" << num(w) << "\" height=\"" << num(h)
     << "\" font-family=\"DejaVu Sans, sans-serif\" font-size=\"12\">\n<title>"
     << html_escape(title) << "</title>\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
}

} // namespace

const char* series_colour(std::size_t i) {
  static const char* const colours[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
                                        "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};
  return colours[i % (sizeof colours / sizeof colours[0])];
}

// A marked point (core/marks.hpp) is ringed in red, as miniapp-plot rings one, and the legend
// names the marks ringed.
void ring(std::ostringstream& os, double x, double y) {
  os << "<circle cx=\"" << num(x) << "\" cy=\"" << num(y)
     << "\" r=\"7\" fill=\"none\" stroke=\"red\" stroke-width=\"1.6\" class=\"marked\"/>\n";
}
std::string names_of(const Marks& m) {
  std::string names;
  for (const std::string& n : mark_names(m))
    names += (names.empty() ? "" : ", ") + n;
  return names;
}

std::vector<std::string> portability_problems(const Portability& p) {
  std::vector<std::string> out;
  for (const auto& s : p.scores)
    if (out.empty() || out.back() != s.problem)
      out.push_back(s.problem);
  return out;
}

std::string cascade_svg(const Portability& p, const std::string& problem) {
  // The applications of the problem, each with its entries best first.
  std::vector<std::pair<std::string, std::vector<const PpEntry*>>> apps;
  const bool arch = architectural(p, problem);
  const auto efficiency = [&](const PpEntry& e) { return miniapp::report::efficiency(e, arch); };
  double top_eff = 1;
  for (const auto& s : p.scores) {
    if (s.problem != problem)
      continue;
    std::vector<const PpEntry*> entries;
    for (const auto& e : p.entries)
      if (e.problem == problem && e.application == s.application) {
        entries.push_back(&e);
        top_eff = std::max(top_eff, efficiency(e));
      }
    std::stable_sort(entries.begin(), entries.end(), [&](const PpEntry* a, const PpEntry* b) {
      return efficiency(*a) > efficiency(*b);
    });
    apps.emplace_back(s.application, std::move(entries));
  }
  const std::size_t nh = std::max<std::size_t>(1, p.platforms.size());
  const double left = 56, plot_w = 440, top = 34, plot_h = 220, legend_x = left + plot_w + 24;
  const double row_h = 18, panel_top = top + plot_h + 62;
  const double height =
      panel_top + row_h * double(apps.size()) + 16 + 16 * double(p.platforms.size()) + 10;
  const double width = 760;
  // at most about 8 grid lines: steps of 0.25, 0.5, 1, 2, ...; the axis ends on a step
  double step = 0.25;
  while (top_eff / step > 8)
    step *= 2;
  const double y_max = std::ceil(top_eff / step - 1e-9) * step;
  const auto x_of = [&](std::size_t k) { return left + (double(k) + 0.5) * plot_w / double(nh); };
  const auto y_of = [&](double e) { return top + plot_h * (1 - e / y_max); };

  std::ostringstream os;
  open_svg(os, width, std::max(height, top + plot_h + 60), "cascade: " + problem);
  text(os, left, 18, "Cascade: " + problem, "start", " font-weight=\"bold\"");
  for (double g = 0; g <= y_max + 1e-9; g += step) {
    os << "<line x1=\"" << num(left) << "\" x2=\"" << num(left + plot_w) << "\" y1=\""
       << num(y_of(g)) << "\" y2=\"" << num(y_of(g)) << "\" stroke=\""
       << (std::fabs(g - 1) < 1e-9 ? "#888" : "#e3e3e3") << "\"/>\n";
    text(os, left - 6, y_of(g) + 4, fmt("%.2f", g), "end");
  }
  for (std::size_t k = 0; k < nh; ++k)
    text(os, x_of(k), top + plot_h + 16, std::to_string(k + 1), "middle");
  text(os, left + plot_w / 2, top + plot_h + 32, "platforms, most efficient first", "middle");
  text(os, 14, top + plot_h / 2, arch ? "architectural efficiency" : "application efficiency",
       "middle", (" transform=\"rotate(-90 14 " + num(top + plot_h / 2) + ")\"").c_str());

  Marks ringed;
  for (std::size_t a = 0; a < apps.size(); ++a) {
    const auto& entries = apps[a].second;
    std::string solid, dashed;
    std::vector<double> so_far;
    for (std::size_t k = 0; k < entries.size(); ++k) {
      so_far.push_back(efficiency(*entries[k]));
      solid += num(x_of(k)) + "," + num(y_of(so_far.back())) + " ";
      dashed += num(x_of(k)) + "," + num(y_of(compare::harmonic_pp(so_far))) + " ";
    }
    const char* c = app_colour(a);
    os << "<polyline fill=\"none\" stroke=\"" << c << "\" stroke-width=\"2\" points=\"" << solid
       << "\"/>\n<polyline fill=\"none\" stroke=\"" << c
       << "\" stroke-width=\"1.5\" stroke-dasharray=\"5 3\" points=\"" << dashed << "\"/>\n";
    for (std::size_t k = 0; k < entries.size(); ++k) {
      os << "<circle cx=\"" << num(x_of(k)) << "\" cy=\"" << num(y_of(efficiency(*entries[k])))
         << "\" r=\"3.5\" fill=\"" << c << "\"/>\n";
      if (entries[k]->marks.any()) {
        ring(os, x_of(k), y_of(efficiency(*entries[k])));
        ringed |= entries[k]->marks;
      }
    }
    const double ly = top + 8 + 18 * double(a);
    os << "<line x1=\"" << num(legend_x) << "\" x2=\"" << num(legend_x + 22) << "\" y1=\""
       << num(ly) << "\" y2=\"" << num(ly) << "\" stroke=\"" << c << "\" stroke-width=\"2\"/>\n";
    text(os, legend_x + 28, ly + 4, apps[a].first);
  }
  const double note_y = top + 8 + 18 * double(apps.size()) + 8;
  text(os, legend_x, note_y, "solid: efficiency on the platform;", "start",
       " font-size=\"11\" fill=\"#555\"");
  text(os, legend_x, note_y + 14, "dashed: PP over the first k", "start",
       " font-size=\"11\" fill=\"#555\"");
  if (ringed.any()) {
    ring(os, legend_x + 6, note_y + 30);
    text(os, legend_x + 18, note_y + 34, "ringed: marked " + names_of(ringed), "start",
         " font-size=\"11\"");
  }

  // Which platform is at each position, per application.
  text(os, left, panel_top - 8, "platform at each position (number and colour):", "start",
       " font-size=\"11\" fill=\"#555\"");
  const double cell_w = std::min(40.0, plot_w / double(nh) - 4);
  for (std::size_t a = 0; a < apps.size(); ++a) {
    const double y = panel_top + row_h * double(a);
    const auto& entries = apps[a].second;
    for (std::size_t k = 0; k < entries.size(); ++k) {
      const std::size_t pi = platform_index(p, entries[k]->platform);
      os << "<rect x=\"" << num(x_of(k) - cell_w / 2) << "\" y=\"" << num(y) << "\" width=\""
         << num(cell_w) << "\" height=\"" << num(row_h - 3) << "\" fill=\"" << series_colour(pi)
         << "\"/>\n";
      text(os, x_of(k), y + row_h - 7, std::to_string(pi + 1) + (entries[k]->failed ? "!" : ""),
           "middle", " fill=\"white\" font-size=\"11\"");
    }
    text(os, legend_x, y + row_h - 7, apps[a].first, "start", " font-size=\"11\"");
  }
  const double key_y = panel_top + row_h * double(apps.size()) + 14;
  for (std::size_t i = 0; i < p.platforms.size(); ++i) {
    const double y = key_y + 16 * double(i);
    os << "<rect x=\"" << num(left) << "\" y=\"" << num(y - 10) << "\" width=\"12\" height=\"12\" "
       << "fill=\"" << series_colour(i) << "\"/>\n";
    text(os, left + 18, y, std::to_string(i + 1) + ": " + p.label(i));
  }
  os << "</svg>\n";
  return os.str();
}

namespace {

// One cell of the heat map: its text (with the marks it carries), fill and ink. Platforms first,
// then the two PP columns.
struct HeatCell {
  std::string label, fill = "#f2f2f2", ink = "#333";
  Marks marks; // the cell's: outlined in red, named in its text
};
HeatCell heat_cell(const Portability& p, const compare::PpScore& s, std::size_t i) {
  const std::size_t np = p.platforms.size();
  HeatCell c;
  std::string &label = c.label, &fill = c.fill, &ink = c.ink;
  Marks& marks = c.marks;
  if (i >= np) {
    const bool na = !(i == np ? s.arch_na() : s.app_na()).empty();
    label = i == np ? s.arch_text() : s.app_text();
    marks = na ? Marks{} : s.marks;
  } else {
    const PpEntry* e = compare::entry_of(p, s, p.platforms[i]);
    if (!e) {
      label = "not run";
    } else if (e->failed) {
      label = "failed";
      fill = "#c0392b";
      ink = "white";
    } else {
      const double shade = e->arch_eff >= 0 ? e->arch_eff : e->app_eff;
      const double t = std::clamp(shade, 0.0, 1.0); // above 1 the darkest; the text says so
      fill = blue_scale(t);
      ink = t > 0.55 ? "white" : "#111";
      label = (e->arch_eff < 0 ? std::string("-") : fmt("%.2f", e->arch_eff)) +
              (e->arch_eff > 1 ? " >1" : "") + " (" +
              (s.one_application() ? std::string("n/a") : fmt("%.2f", e->app_eff)) + ")";
      marks = e->marks;
    }
  }
  label += marks_text(marks);
  return c;
}

} // namespace

std::string efficiency_heat_map_svg(const Portability& p) {
  const double label_w = 330, cell_w = 150, row_h = 22, line_h = 14;
  const std::size_t np = p.platforms.size(), cols = np + 2; // + PP of both efficiencies
  constexpr std::size_t kChars = 24;                        // of 11-pixel text in a cell
  // Each column's header whole, in as many lines as it takes: a run's label, or PP and which.
  std::vector<std::vector<std::string>> headers;
  std::size_t header_lines = 1;
  for (std::size_t i = 0; i < cols; ++i) {
    headers.push_back(i < np    ? wrapped(p.label(i), kChars)
                      : i == np ? std::vector<std::string>{"PP", "(architectural)"}
                                : std::vector<std::string>{"PP", "(application)"});
    header_lines = std::max(header_lines, headers.back().size());
  }
  // Each row as tall as its longest cell text (a platform's with its marks, or a PP's), wrapped
  // like the headers: a cell of three marks was cut at its fourth line.
  std::vector<std::size_t> row_lines;
  for (const auto& s : p.scores) {
    std::size_t lines = 1;
    for (std::size_t i = 0; i < cols; ++i)
      lines = std::max(lines, wrapped(heat_cell(p, s, i).label, kChars).size());
    row_lines.push_back(lines);
  }
  const double top = 30 + line_h * double(header_lines) + 8;
  std::vector<double> row_y{top};
  for (const std::size_t lines : row_lines)
    row_y.push_back(row_y.back() + row_h + line_h * double(lines - 1));
  const double width = label_w + cell_w * double(cols) + 10;
  const bool any_marked = std::any_of(p.scores.begin(), p.scores.end(),
                                      [](const compare::PpScore& s) { return s.marks.any(); });
  const double height = row_y.back() + (any_marked ? 54 : 40);
  std::ostringstream os;
  Marks shown;
  open_svg(os, width, height, "efficiencies by platform");
  text(os, 4, 18, "Architectural efficiency (application efficiency in brackets) and PP", "start",
       " font-weight=\"bold\"");
  for (std::size_t i = 0; i < cols; ++i) {
    const double x = label_w + cell_w * (double(i) + 0.5);
    const std::vector<std::string>& h = headers[i];
    for (std::size_t k = 0; k < h.size(); ++k) // bottom-aligned above the cells
      text(os, x, top - 10 - line_h * double(h.size() - 1 - k), h[k], "middle",
           " font-size=\"11\"");
  }
  for (std::size_t r = 0; r < p.scores.size(); ++r) {
    const auto& s = p.scores[r];
    const double y = row_y[r], h = row_y[r + 1] - row_y[r];
    text(os, 4, y + 15, s.problem + "  " + s.application, "start", " font-size=\"11\"");
    for (std::size_t i = 0; i < cols; ++i) {
      const double x = label_w + cell_w * double(i);
      const HeatCell c = heat_cell(p, s, i);
      const std::string &label = c.label, &fill = c.fill, &ink = c.ink;
      const Marks& marks = c.marks;
      shown |= marks;
      os << "<rect x=\"" << num(x + 1) << "\" y=\"" << num(y + 1) << "\" width=\""
         << num(cell_w - 2) << "\" height=\"" << num(h - 2) << "\" fill=\"" << fill << "\""
         << (marks.any() ? " stroke=\"red\" stroke-width=\"2\" class=\"marked\"" : "") << "/>\n";
      const std::vector<std::string> lines = wrapped(label, kChars);
      for (std::size_t k = 0; k < lines.size(); ++k)
        text(os, x + cell_w / 2, y + 15 + line_h * double(k), lines[k], "middle",
             (" font-size=\"11\" fill=\"" + ink + "\"").c_str());
    }
  }
  text(os, 4, height - 14,
       "Colour: architectural efficiency (application efficiency where the row has no ceiling), "
       "white 0 to dark blue 1; above 1 shown as measured (>1).",
       "start", " font-size=\"11\" fill=\"#555\"");
  if (shown.any())
    text(os, 4, height - 28,
         "Outlined in red: marked " + names_of(shown) +
             " (named in the cell; the legend under the comparison says what each means).",
         "start", " font-size=\"11\" fill=\"#b3261e\"");
  os << "</svg>\n";
  return os.str();
}

std::string portability_section(const Portability& p) {
  std::ostringstream os;
  os << "<section id=\"portability\">\n<h2>Performance portability</h2>\n<p class=\"legend\">"
        "Platforms: "
     << p.platforms.size()
     << " (a run's backend and device). For each problem (family, precision, size) and "
        "application (variant and parameters): the application efficiency on a platform is the "
        "best time for the problem there, across the applications and runs compared, over this "
        "application's time; the architectural efficiency is the rate over the ceiling measured "
        "in the same run. PP is their harmonic mean over the platforms (Pennycook, Sewall and "
        "Lee, 2019): 0 when the application failed on one, <i>incomplete</i> when it did not "
        "run on all. The cascade plots (Sewall et al., 2020) sort each application's platforms "
        "from the most to the least efficient. docs/compare.md defines each number.</p>\n";
  if (p.scores.empty()) {
    os << "<p class=\"note\">No rows to compare.</p>\n</section>\n";
    return os.str();
  }
  if (p.platforms.size() < 2) { // PP over one platform is 1 by construction: no figure of it
    os << "<p class=\"note\">PP: n/a: one platform (" << html_escape(p.label(0))
       << "). PP compares platforms; a report over runs of two or more has it.</p>\n</section>\n";
    return os.str();
  }
  // Captions above their figures: a caption below one reads as the next figure's title.
  os << "<figure class=\"plot\" id=\"pp-heat-map\"><figcaption>efficiency heat map</figcaption>"
     << efficiency_heat_map_svg(p) << "</figure>\n<div class=\"plots\">\n";
  const std::vector<std::string> problems = portability_problems(p);
  for (std::size_t i = 0; i < problems.size() && i < kMaxCascades; ++i)
    os << "<figure class=\"plot cascade\"><figcaption>cascade: " << html_escape(problems[i])
       << "</figcaption>" << cascade_svg(p, problems[i]) << "</figure>\n";
  os << "</div>\n";
  if (problems.size() > kMaxCascades)
    os << "<p class=\"note\">" << problems.size() - kMaxCascades
       << " more problems: <code>miniapp compare --table portability</code> lists every "
          "one.</p>\n";
  os << "</section>\n";
  return os.str();
}

} // namespace report
} // namespace miniapp
