#include "report/html_report.hpp"
#include "core/text.hpp"

#include "core/sinks.hpp"
#include "compare/tables.hpp"
#include "report/portability_svg.hpp"
#include "compare/pooling.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <sstream>
#include <stdexcept>

namespace miniapp {
namespace report {

namespace {

std::string lower(std::string s) {
  for (auto& ch : s)
    ch = char(std::tolower(static_cast<unsigned char>(ch)));
  return s;
}

// A metadata value as text: strings as they are, numbers and booleans printed, absent or null "".
std::string meta(const nlohmann::json& m, const char* key) {
  if (!m.is_object())
    return "";
  const auto it = m.find(key);
  if (it == m.end() || it->is_null())
    return "";
  if (it->is_string())
    return it->get<std::string>();
  if (it->is_number_float())
    return fmt("%.6g", it->get<double>());
  return it->dump();
}

std::string run_title(const compare::Comparison& c, std::size_t i) {
  return "run " + std::to_string(i + 1) + (i == c.options.baseline ? " (baseline)" : "");
}

bool shell_name(const std::string& s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0])))
    return false;
  return std::all_of(s.begin(), s.end(), [](char ch) {
    return std::isalnum(static_cast<unsigned char>(ch)) || ch == '_';
  });
}
// The recorded variables that change what a rerun does (SLURM_* belong to the old job).
bool reproduces(const std::string& name) {
  return name.rfind("OMP_", 0) == 0 || name.rfind("KOKKOS_", 0) == 0 ||
         name == "CUDA_VISIBLE_DEVICES" || name == "ROCR_VISIBLE_DEVICES" ||
         name == "HIP_VISIBLE_DEVICES";
}

const char* kStyle = R"(
body { font: 15px/1.45 "DejaVu Sans", "Liberation Sans", Arial, sans-serif; color: #1d1d1f;
       margin: 24px auto; max-width: 1340px; padding: 0 20px; }
h1 { font-size: 26px; margin: 0 0 4px; }
h2 { font-size: 19px; margin: 28px 0 8px; border-bottom: 1px solid #d0d0d5; padding-bottom: 3px; }
h3 { font-size: 15px; margin: 14px 0 4px; }
.sub, .note, .legend { color: #555; }
.legend { font-size: 13px; max-width: 1100px; }
table { border-collapse: collapse; margin: 6px 0; }
th, td { border: 1px solid #c9c9cf; padding: 4px 9px; vertical-align: top; }
thead th { background: #eef0f4; }
tbody th { background: #f6f7f9; text-align: left; font-weight: 600; white-space: nowrap; }
#comparison tbody th, #energy tbody th { white-space: normal; } /* case ids break at '/' */
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
.range { color: #666; font-size: 12px; }
.mark { color: #b3261e; font-size: 12px; }
.spread { display: block; white-space: normal; }
.scroll { overflow-x: auto; max-width: 100%; }
.runlabel { font-weight: normal; font-size: 12px; color: #444; }
.faster { color: #0b6e2a; font-weight: 600; }
.slower { color: #b3261e; font-weight: 600; }
.noise { color: #666; }
.invalid { color: #b3261e; }
td.differs { background: #fff1a8; }
td.unknown { color: #999; }
#metadata td { max-width: 520px; overflow-wrap: anywhere; }
.plots { display: grid; grid-template-columns: repeat(auto-fill, minmax(540px, 1fr)); gap: 12px; }
.plots figure { margin: 0; border: 1px solid #e0e0e5; }
.plots svg { display: block; width: 100%; height: auto; }
.plots figcaption { font-size: 12px; color: #555; padding: 2px 8px; }
pre.cmd { background: #f4f5f7; border: 1px solid #d8d8de; padding: 8px 10px; margin: 4px 0;
          white-space: pre-wrap; overflow-wrap: anywhere; user-select: all; font-size: 13px; }
ul.warnings li { margin: 3px 0; }
)";

// A case id that may break after each '/': unbroken ("axpby/flat/float32/128x128/a=2,b=0.5",
// 362 px) it pushed the Table 1 comparison to 1392 px in a page of 1340 (1400-px window).
std::string breakable_case(const compare::Line& l) {
  std::string out;
  for (const char ch : html_escape(compare::case_label(l)))
    out += ch == '/' ? std::string("/<wbr>") : std::string(1, ch);
  return out;
}

void comparison_table(std::ostringstream& os, const compare::Comparison& c) {
  const std::size_t b = c.options.baseline, nr = c.runs.size();
  os << "<div class=\"scroll\"><table id=\"comparison\">\n<thead>\n<tr><th rowspan=\"2\">case</th>"
        "<th rowspan=\"2\">size</th><th rowspan=\"2\">tile</th><th rowspan=\"2\">unit</th>";
  for (std::size_t i = 0; i < nr; ++i)
    os << "<th colspan=\"2\" class=\"run\" data-run=\"" << i + 1 << "\">" << run_title(c, i)
       << "<br><span class=\"runlabel\">" << html_escape(c.runs[i].label()) << "</span></th>";
  for (std::size_t i = 0; i < nr; ++i)
    if (i != b)
      os << "<th rowspan=\"2\" class=\"ratio\" data-run=\"" << i + 1 << "\">"
         << compare::measure_name(c.options.with_transfers) << " ratio<br>run " << i + 1
         << " / run " << b + 1 << "</th>";
  os << "</tr>\n<tr>";
  for (std::size_t i = 0; i < nr; ++i)
    os << "<th>" << compare::measure_name(c.options.with_transfers) << " rate</th><th>"
       << compare::measure_name(c.options.with_transfers)
       << " time ms<br><span class=\"runlabel\">median [min, max] cv</span></th>";
  os << "</tr>\n</thead>\n<tbody>\n";
  for (const auto& l : c.lines) {
    os << "<tr class=\"case\"><th>" << breakable_case(l) << "</th><td>" << html_escape(l.size)
       << "</td><td>" << html_escape(l.tile) << "</td><td>" << html_escape(l.unit) << "</td>";
    for (std::size_t i = 0; i < nr; ++i) {
      const compare::Cell& cell = l.cells[i];
      if (!cell.present) {
        os << "<td class=\"num\" data-run=\"" << i + 1 << "\">-</td><td class=\"num\">-</td>";
        continue;
      }
      os << "<td class=\"num\" data-run=\"" << i + 1 << "\">" << compare::rate_str(cell.rate);
      if (cell.valid != "true")
        os << " <span class=\"invalid\" title=\"valid=" << html_escape(cell.valid)
           << "\">(!)</span>";
      os << marks_html(cell.marks); // core/marks.hpp; an uncertain ceiling's range in the warnings
      os << "</td><td class=\"num\">" << compare::ms(cell.t_median)
         << " <span class=\"range spread\">[" << compare::ms(cell.t_min) << ", "
         << compare::ms(cell.t_max) << "]";
      if (cell.cv >= 0)
        os << " cv " << html_escape(compare::spread_text(cell));
      os << "</span></td>";
    }
    for (std::size_t i = 0; i < nr; ++i) {
      if (i == b)
        continue;
      const compare::Cell& cell = l.cells[i];
      if (!cell.present || !l.cells[b].present || cell.ratio <= 0) {
        os << "<td class=\"num\">-</td>";
        continue;
      }
      // compare's verdict, not a new one (compare/pooling.hpp): a `?` (the repetitions of
      // these runs differ, the run-to-run spread is unknown) is no difference to colour.
      const bool differs = !cell.within_noise && cell.test != compare::Test::repetitions;
      const char* cls = !differs ? "noise" : cell.ratio >= 1 ? "faster" : "slower";
      os << "<td class=\"num " << cls << "\">"
         << fmt(cell.ratio >= 0.1 ? "%.2f" : "%.2g", cell.ratio) << "x " << compare::mark(cell);
      if (cell.p_value >= 0)
        os << " <span class=\"range\">(p " << fmt("%.2g", cell.p_value) << ")</span>";
      os << marks_html(compare::ratio_marks(l, i, b)) << "</td>";
    }
    os << "</tr>\n";
  }
  os << "</tbody>\n</table></div>\n";
}

void metadata_table(std::ostringstream& os, const compare::Comparison& c,
                    const std::vector<compare::Run>& runs) {
  os << "<div class=\"scroll\"><table id=\"metadata\">\n<thead><tr><th></th>";
  for (std::size_t i = 0; i < c.runs.size(); ++i)
    os << "<th data-run=\"" << i + 1 << "\">" << run_title(c, i) << "</th>";
  os << "</tr></thead>\n<tbody>\n";
  for (const auto& row : metadata_rows(c, runs)) {
    os << "<tr><th>" << html_escape(row.name) << "</th>";
    for (std::size_t i = 0; i < row.values.size(); ++i) {
      if (row.values[i].empty())
        os << "<td class=\"unknown\">unknown</td>";
      else
        os << "<td" << (row.differs[i] ? " class=\"differs\"" : "") << ">"
           << html_escape(row.values[i]) << "</td>";
    }
    os << "</tr>\n";
  }
  os << "</tbody>\n</table></div>\n";
}

// Each run's mean watts and kernel rate per watt beside the rates (compare's energy_text), and
// why the empty cells are empty; nothing for runs from before energy was recorded.
void energy_section(std::ostringstream& os, const compare::Comparison& c) {
  if (!compare::energy_recorded(c))
    return;
  os << "<h2>Energy</h2>\n<p class=\"legend\">Mean power over each case's launches (the device's "
        "energy counter, or the host's) and the kernel rate per watt.</p>\n<div class=\"scroll\">"
        "<table id=\"energy\">\n<thead><tr><th>case</th><th>size</th>";
  for (std::size_t i = 0; i < c.runs.size(); ++i)
    os << "<th data-run=\"" << i + 1 << "\">" << run_title(c, i) << " power, rate/W</th>";
  os << "</tr></thead>\n<tbody>\n";
  for (const auto& l : c.lines) {
    os << "<tr><th>" << breakable_case(l) << "</th><td>" << html_escape(l.size) << "</td>";
    for (const compare::Cell& cell : l.cells)
      os << "<td class=\"num\">" << html_escape(compare::energy_text(cell)) << "</td>";
    os << "</tr>\n";
  }
  os << "</tbody></table></div>\n";
  for (std::size_t i = 0; i < c.runs.size(); ++i)
    for (const std::string& note : compare::energy_notes(c, i))
      os << "<p class=\"note\">Run " << i + 1 << ", not measured: " << html_escape(note)
         << "</p>\n";
}

void plots_section(std::ostringstream& os, const ReportOptions& opt) {
  os << "<h2>Plots</h2>\n";
  if (!opt.plots_note.empty())
    os << "<p class=\"note\" id=\"plots-note\">" << html_escape(opt.plots_note) << "</p>\n";
  if (opt.plots.empty())
    return;
  os << "<div class=\"plots\">\n";
  for (const auto& p : opt.plots)
    os << "<figure class=\"plot\"><figcaption>" << html_escape(p.name) << "</figcaption>" << p.svg
       << "</figure>\n"; // the caption above: below, it reads as the next figure's title
  os << "</div>\n";
}

void reproduce_section(std::ostringstream& os, const compare::Comparison& c) {
  os << "<section id=\"reproduce\">\n<h2>Reproduce</h2>\n<p class=\"legend\">Each run's command "
        "line as recorded in its "
        "results.json, after the environment variables that steer Kokkos and OpenMP. Run it "
        "from the directory it was started in (the config path below is where it resolved); a "
        "recorded <code>--output-dir</code> must not exist yet.</p>\n";
  for (std::size_t i = 0; i < c.runs.size(); ++i) {
    const compare::Run& r = c.runs[i];
    os << "<h3>" << run_title(c, i) << ": " << html_escape(r.label()) << "</h3>\n";
    const std::string cmd = reproduce_command(r);
    if (cmd.empty()) {
      os << "<p class=\"note\">Not recorded: this results.json predates the recording of the "
            "command line. Its config (hash "
         << html_escape(r.config_hash.empty() ? "unknown" : r.config_hash)
         << ") is stored in the results.json under \"config\".</p>\n";
      continue;
    }
    os << "<pre class=\"cmd\" data-run=\"" << i + 1 << "\"><code>" << html_escape(cmd)
       << "</code></pre>\n";
    const std::string config = meta(r.metadata, "config_path");
    if (!config.empty())
      os << "<p class=\"note\">config: <code>" << html_escape(config) << "</code></p>\n";
  }
  os << "</section>\n";
}

} // namespace

std::string marks_html(const Marks& m) {
  return m.any() ? " <span class=\"mark\">" + html_escape(marks_text(m).substr(1)) + "</span>" : "";
}

std::string html_escape(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (const char ch : s) {
    switch (ch) {
    case '&':
      out += "&amp;";
      break;
    case '<':
      out += "&lt;";
      break;
    case '>':
      out += "&gt;";
      break;
    case '"':
      out += "&quot;";
      break;
    case '\'':
      out += "&#39;";
      break;
    default:
      out += ch;
    }
  }
  return out;
}

std::string inline_svg(const std::string& file_text) {
  const auto begin = file_text.find("<svg");
  const auto end = file_text.rfind("</svg>");
  if (begin == std::string::npos || end == std::string::npos || end < begin)
    return "";
  std::string svg = file_text.substr(begin, end + 6 - begin);
  const std::string low = lower(svg);
  for (const char* bad : {"<script", "<foreignobject", "javascript:", "<iframe", "<!doctype"})
    if (low.find(bad) != std::string::npos)
      return "";
  // An event handler attribute: whitespace, "on", letters, optional spaces, "=".
  for (std::size_t at = low.find("on"); at != std::string::npos; at = low.find("on", at + 1)) {
    if (at == 0 || !std::isspace(static_cast<unsigned char>(low[at - 1])))
      continue;
    std::size_t j = at + 2;
    while (j < low.size() && std::isalpha(static_cast<unsigned char>(low[j])))
      ++j;
    while (j < low.size() && std::isspace(static_cast<unsigned char>(low[j])))
      ++j;
    if (j > at + 2 && j < low.size() && low[j] == '=')
      return "";
  }
  return svg;
}

std::vector<MetadataRow> metadata_rows(const compare::Comparison& c,
                                       const std::vector<compare::Run>& runs) {
  if (runs.size() != c.runs.size())
    throw std::invalid_argument("html report: " + std::to_string(runs.size()) + " runs given for " +
                                std::to_string(c.runs.size()) + " compared");
  const std::size_t b = c.options.baseline;
  std::vector<MetadataRow> rows;
  // compared: whether a difference from the baseline is worth a highlight (a source path, a
  // start time or a load average always differ and say nothing about the results).
  const auto add = [&](const std::string& name, bool compared, auto value_of) {
    MetadataRow row;
    row.name = name;
    for (std::size_t i = 0; i < c.runs.size(); ++i)
      row.values.push_back(value_of(c.runs[i], i));
    for (std::size_t i = 0; i < c.runs.size(); ++i)
      row.differs.push_back(compared && i != b && !row.values[i].empty() &&
                            !row.values[b].empty() && row.values[i] != row.values[b]);
    rows.push_back(row);
  };
  using R = const compare::Run&;
  const auto field = [](const char* key) {
    return [key](R r, std::size_t) { return meta(r.metadata, key); };
  };
  add("label", false, [](R r, std::size_t) { return r.label(); });
  add("backend", true, [](R r, std::size_t) { return r.backend; });
  add("device", true, [](R r, std::size_t) { return r.device; });
  add("host", true, [](R r, std::size_t) { return r.host; });
  add("host CPUs", true,
      [](R r, std::size_t) { return r.host_cpus > 0 ? std::to_string(r.host_cpus) : ""; });
  add("ranks x threads", true,
      [](R r, std::size_t) { return r.shape() == "?" ? std::string() : r.shape(); });
  add("thread binding", true, [](R r, std::size_t) { return r.binding; });
  add("Kokkos", true, field("kokkos_version"));
  add("compiler", true, field("compiler"));
  add("MPI library", true, field("mpi_library"));
  add("host BLAS", true, field("host_blas"));
  add("miniapp", true, [](R r, std::size_t) {
    const std::string v = meta(r.metadata, "miniapp_version"), g = meta(r.metadata, "git_revision");
    return v + (g.empty() ? "" : " (git " + g + ")");
  });
  add("experiment", true, [](R r, std::size_t) { return r.experiment; });
  add("config hash", true, [](R r, std::size_t) { return r.config_hash; });
  add("cases", true, [&](R, std::size_t i) {
    const auto& rs = runs[i].rows;
    const auto valid = std::count_if(rs.begin(), rs.end(),
                                     [](const compare::Row& x) { return x.valid == "true"; });
    return std::to_string(rs.size()) + " (" + std::to_string(valid) + " valid)";
  });
  add("complete", true, [](R r, std::size_t) { return std::string(r.complete ? "yes" : "no"); });
  add("Slurm job", false, field("slurm_job_id"));
  add("started", false, field("start_time"));
  add("load average", false,
      [](R r, std::size_t) { return r.load1 >= 0 ? fmt("%.2f", r.load1) : std::string(); });
  add("source", false, [](R r, std::size_t) { return r.source; });
  return rows;
}

std::string reproduce_command(const compare::Run& run) {
  const nlohmann::json& m = run.metadata;
  if (!m.is_object())
    return "";
  std::vector<std::string> words;
  const auto argv = m.find("argv");
  if (argv != m.end() && argv->is_array() && !argv->empty()) {
    for (const auto& a : *argv)
      words.push_back(a.is_string() ? a.get<std::string>() : a.dump());
  } else {
    const std::string config = meta(m, "config_path");
    if (config.empty())
      return "";
    words = {"miniapp", "run", config};
    const auto sets = m.find("overrides");
    if (sets != m.end() && sets->is_array() && !sets->empty()) {
      words.push_back("--set");
      for (const auto& s : *sets)
        words.push_back(s.is_string() ? s.get<std::string>() : s.dump());
    }
  }
  std::string cmd;
  const auto env = m.find("environment");
  if (env != m.end() && env->is_object())
    for (const auto& kv : env->items())
      if (shell_name(kv.key()) && reproduces(kv.key()) && kv.value().is_string())
        cmd += kv.key() + "=" + shell_word(kv.value().get<std::string>()) + " ";
  for (std::size_t i = 0; i < words.size(); ++i)
    cmd += (i ? " " : "") + shell_word(words[i]);
  return cmd;
}

std::string html_report(const compare::Comparison& c, const std::vector<compare::Run>& runs,
                        const ReportOptions& opt) {
  const std::size_t b = c.options.baseline;
  std::ostringstream os;
  os << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
     << "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
     // No script, no network: the page is inert whatever the results files held.
     << "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
        "style-src 'unsafe-inline'; img-src data:\">\n"
     << "<title>" << html_escape(opt.title) << "</title>\n<style>" << kStyle << "</style>\n"
     << "</head>\n<body>\n<h1>" << html_escape(opt.title) << "</h1>\n<p class=\"sub\">"
     << c.runs.size() << (c.runs.size() == 1 ? " run" : " runs") << ", baseline run " << b + 1
     << " (" << html_escape(c.runs[b].label()) << ")"
     << (opt.generated.empty() ? "" : "; generated " + html_escape(opt.generated)) << "</p>\n";

  os << opt.scaling_section;
  os << "<h2>Comparison</h2>\n<p class=\"legend\">Rate: "
     << (c.options.rate == compare::RateKind::Gflops ? "GFLOP/s"
         : c.options.rate == compare::RateKind::Gbs  ? "GB/s"
                                                     : compare::auto_rate_legend())
     << ". " << html_escape(compare::measure_definition(c.options.with_transfers))
     << ". Time: median [min, max] in ms over the repetitions. "
     << html_escape(compare::significance_legend(b))
     << " <span class=\"faster\">Green</span>: significantly faster, "
        "<span class=\"slower\">red</span>: significantly slower. (!) marks a row whose "
        "validation did not pass or was not checked.</p>\n";
  comparison_table(os, c);
  if (const Marks shown = compare::marks_shown(c); shown.any())
    os << "<p class=\"legend\" id=\"marks-legend\">" << html_escape(marks_legend(shown))
       << (shown.uncertain ? " The ceilings' ranges are in the warnings." : "") << "</p>\n";
  energy_section(os, c);

  os << "<h2>Warnings</h2>\n";
  if (c.warnings.empty()) {
    os << "<p class=\"note\" id=\"no-warnings\">None: the runs share their config hash and case "
          "parameters, and every row is valid.</p>\n";
  } else {
    os << "<ul class=\"warnings\" id=\"warnings\">\n";
    for (const auto& w : c.warnings)
      os << "<li>" << html_escape(w) << "</li>\n";
    os << "</ul>\n";
  }

  os << portability_section(compare::performance_portability(runs, c.options.with_transfers));
  plots_section(os, opt);

  os << "<h2>Runs</h2>\n<p class=\"legend\">Highlighted: differs from the baseline, run " << b + 1
     << ".</p>\n";
  metadata_table(os, c, runs);

  reproduce_section(os, c);
  os << "</body>\n</html>\n";
  return os.str();
}

} // namespace report
} // namespace miniapp
