#include "compare/tables.hpp"
#include "compare/pooling.hpp"

#include "core/energy.hpp"
#include "core/sinks.hpp"
#include "core/text.hpp"
#include "kernels/paper_views.hpp"

#include <algorithm>
#include <sstream>
#include <stdexcept>

namespace miniapp {
namespace compare {

std::string rate_str(double v) {
  return fmt(v >= 100 ? "%.1f" : v >= 1 ? "%.2f" : "%.3g", v);
}
std::string ms(double seconds) {
  return fmt("%.4g", seconds * 1e3);
}

std::string case_label(const Line& l) {
  return l.case_id.empty() ? l.family + "/" + l.variant + "/" + l.precision : l.case_id;
}

std::string markdown_cell(const std::string& s) {
  std::string out;
  for (const char ch : s) {
    switch (ch) {
    case '|':
      out += "\\|";
      break;
    case '\\':
      out += "\\\\";
      break;
    case '`':
      out += "\\`";
      break;
    case '<':
      out += "&lt;";
      break;
    case '>':
      out += "&gt;";
      break;
    case '&':
      out += "&amp;";
      break;
    case '\n':
    case '\r':
      out += ' ';
      break;
    default:
      out += ch;
    }
  }
  return for_terminal(out); // markdown is read on terminals too
}

namespace {
// The ratio with its mark: "1.52x * (p 0.001)" significant, "1.02x ~ (p 0.4)" not; without
// repetition times "1.02x ~" when the [min, max] ranges overlap.
std::string ratio_text(const Cell& cell) {
  std::string s = fmt(cell.ratio >= 0.1 ? "%.2f" : "%.2g", cell.ratio) + "x";
  if (*mark(cell))
    s += std::string(" ") + mark(cell);
  if (cell.p_value >= 0)
    s += " (p " + fmt("%.2g", cell.p_value) + ")";
  return s;
}
} // namespace

std::string energy_text(const Cell& cell) {
  if (!cell.present || cell.watts < 0)
    return "-";
  // A limited clock (results' clock_limit) is named: the rate then depends on how long it ran.
  return fmt("%.0f", cell.watts) + " W" +
         (cell.per_watt >= 0 ? ", " + rate_str(cell.per_watt) + " " + cell.per_watt_unit : "") +
         (clock_was_limited(cell.clock_limit) ? " (clock: " + cell.clock_limit + ")" : "");
}

std::vector<std::string> energy_notes(const Comparison& c, std::size_t run) {
  std::vector<std::string> notes;
  for (const Line& l : c.lines) {
    const Cell& cell = l.cells[run];
    // A file from before energy was recorded says so, not nothing: its "-" is not a machine
    // without a counter.
    const std::string note = cell.before_energy ? std::string(kBeforeEnergyNote) : cell.energy_note;
    if (cell.present && cell.watts < 0 && !note.empty() &&
        std::find(notes.begin(), notes.end(), note) == notes.end())
      notes.push_back(note);
  }
  return notes;
}

namespace {
// A run's name in the column headers: its label (--name, --label, or the default naming the
// backend, ranks x threads and device), with ranks x threads added where the label lacks them.
std::string run_heading(const Run& r) {
  const std::string label = r.label(), shape = r.shape();
  const bool said = shape == "?" || label.find(shape) != std::string::npos;
  return markdown_cell(said ? label : label + " (" + shape + ")");
}

// The energy beside the rates: each run's mean watts and kernel rate per watt, then why the
// empty cells are empty. Nothing for runs from before energy was recorded.
void energy_markdown(std::ostream& os, const Comparison& c) {
  if (!energy_recorded(c))
    return;
  os << "\n## Energy\n\nMean power over each case's launches (the device's energy counter, or the "
        "host's for host backends) and the kernel rate per watt (GFLOP/s/W is GFLOP per joule, "
        "GB/s/W GB per joule).\n\n| case | size |";
  for (std::size_t i = 0; i < c.runs.size(); ++i)
    os << " " << run_heading(c.runs[i]) << " power, rate/W |";
  os << "\n|---|---|";
  for (std::size_t i = 0; i < c.runs.size(); ++i)
    os << "---:|";
  os << "\n";
  for (const Line& l : c.lines) {
    os << "| " << markdown_cell(case_label(l)) << " | " << l.size << " |";
    for (const Cell& cell : l.cells)
      os << " " << energy_text(cell) << " |";
    os << "\n";
  }
  for (std::size_t i = 0; i < c.runs.size(); ++i)
    for (const std::string& note : energy_notes(c, i))
      os << "\nRun " << i + 1 << ", not measured: " << markdown_cell(note) << "\n";
}
} // namespace

std::string to_markdown(const Comparison& c) {
  const std::size_t b = c.options.baseline;
  const std::size_t nr = c.runs.size();
  const auto md = markdown_cell;
  std::ostringstream os;
  os << "# miniapp compare\n\n";
  os << "| run | label | ranks x threads | backend | device | host | binding | config hash | "
        "source | details |\n"
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n";
  for (std::size_t i = 0; i < nr; ++i) {
    const Run& r = c.runs[i];
    const auto or_q = [&](const std::string& v) { return v.empty() ? std::string("?") : md(v); };
    os << "| " << i + 1 << (i == b ? " (baseline)" : "") << " | " << md(r.label()) << " | "
       << r.shape() << " | " << md(r.backend) << " | " << or_q(r.device) << " | " << or_q(r.host)
       << " | " << or_q(r.binding) << " | " << or_q(r.config_hash) << " | " << md(r.source) << " | "
       << md(r.details) << " |\n";
  }
  os << "\nRate: "
     << (c.options.rate == RateKind::Gflops ? "GFLOP/s"
         : c.options.rate == RateKind::Gbs  ? "GB/s"
                                            : auto_rate_legend())
     << ". " << measure_definition(c.options.with_transfers)
     << ". Time: median [min, max] in ms over the repetitions"
     << (c.options.with_transfers ? " (range estimated: compute range + median transfer time)" : "")
     << ". " << significance_legend(b) << "\n\n";

  const std::string measure = measure_name(c.options.with_transfers);
  os << "| case | size | tile | unit |";
  for (std::size_t i = 0; i < nr; ++i) {
    const std::string name = run_heading(c.runs[i]);
    os << " " << name << " " << measure << " rate | " << name << " " << measure << " time ms | "
       << name << " spread |";
  }
  for (std::size_t i = 0; i < nr; ++i)
    if (i != b)
      os << " " << measure << " ratio " << run_heading(c.runs[i]) << " / " << run_heading(c.runs[b])
         << " |";
  os << "\n|" << std::string("---|---|---|---|");
  for (std::size_t i = 0; i < nr; ++i)
    os << "---:|---:|---:|";
  for (std::size_t i = 0; i + 1 < nr; ++i)
    os << "---:|";
  os << "\n";
  for (const auto& l : c.lines) {
    os << "| " << md(case_label(l)) << " | " << l.size << " | " << l.tile << " | " << l.unit
       << " |";
    for (const auto& cell : l.cells) {
      if (!cell.present) {
        os << " - | - | - |";
        continue;
      }
      os << " " << rate_str(cell.rate) << (cell.valid == "true" ? "" : " (!)")
         << marks_text(cell.marks) << " | " << ms(cell.t_median) << " [" << ms(cell.t_min) << ", "
         << ms(cell.t_max) << "] | " << spread_text(cell) << " |";
    }
    for (std::size_t i = 0; i < nr; ++i) {
      if (i == b)
        continue;
      const Cell& cell = l.cells[i];
      if (!cell.present || !l.cells[b].present || cell.ratio <= 0)
        os << " - |";
      else
        os << " " << ratio_text(cell) << marks_text(ratio_marks(l, i, b)) << " |";
    }
    os << "\n";
  }
  if (const Marks shown = marks_shown(c); shown.any())
    os << "\n"
       << marks_legend(shown)
       << (shown.uncertain ? " The ceilings' ranges are in the warnings." : "") << "\n";
  energy_markdown(os, c);
  if (c.warnings.empty()) {
    os << "\nNo warnings: the runs share their config hash and case parameters, and every row is "
          "valid.\n";
  } else {
    os << "\n## Warnings\n\n";
    for (const auto& w : c.warnings)
      os << "- " << md(w) << "\n";
    os << "\n(!) after a rate marks a row whose validation did not pass or was not checked.\n";
  }
  return os.str();
}

std::string to_csv(const Comparison& c) {
  const std::size_t b = c.options.baseline;
  const auto q = for_csv_cell;
  std::ostringstream os;
  os << "case,family,variant,precision,m,n,k,tile,run,run_label,backend,device,host,ranks,threads,"
        "baseline,with_transfers,measure,unit,rate,time_min_s,time_median_s,time_max_s,ratio_to_"
        "baseline,"
        "within_noise,p_value,valid,notes,run_warnings,case_id,mark,test,rounds,cv,busy,"
        "ceiling_uncertain,marks,ratio_marks\n";
  // Run-level warnings once per run (on its first row), not on every row.
  std::vector<std::string> run_notes(c.runs.size());
  for (std::size_t i = 0; i < c.runs.size(); ++i)
    for (const auto& w : c.run_warnings)
      if (w.find("run " + std::to_string(i + 1) + " ") != std::string::npos)
        run_notes[i] += (run_notes[i].empty() ? "" : "; ") + w;
  std::vector<bool> first(c.runs.size(), true);
  for (std::size_t li = 0; li < c.lines.size(); ++li) {
    const Line& l = c.lines[li];
    std::string notes;
    for (const auto& n : l.notes)
      notes += (notes.empty() ? "" : "; ") + n;
    for (std::size_t i = 0; i < c.runs.size(); ++i) {
      const Cell& cell = l.cells[i];
      const Run& r = c.runs[i];
      os << li + 1 << "," << q(l.family) << "," << q(l.variant) << "," << q(l.precision) << ","
         << l.m << "," << l.n << "," << l.k << "," << q(l.tile) << "," << i + 1 << ","
         << q(r.label()) << "," << q(r.backend) << "," << q(r.device) << "," << q(r.host) << ","
         << (r.ranks > 0 ? std::to_string(r.ranks) : "") << ","
         << (r.threads > 0 ? std::to_string(r.threads) : "") << "," << (i == b ? "true" : "false")
         << "," << (c.options.with_transfers ? "true" : "false") << ","
         << measure_name(c.options.with_transfers) << "," << l.unit << ",";
      if (cell.present) {
        os << fmt("%.6g", cell.rate) << "," << fmt("%.6g", cell.t_min) << ","
           << fmt("%.6g", cell.t_median) << "," << fmt("%.6g", cell.t_max) << ",";
        if (i == b)
          os << "1,,,";
        else if (cell.ratio > 0)
          os << fmt("%.6g", cell.ratio) << "," << (cell.within_noise ? "true" : "false") << ","
             << (cell.p_value >= 0 ? fmt("%.6g", cell.p_value) : "") << ",";
        else
          os << ",,,";
        os << q(cell.valid);
      } else {
        os << ",,,,,,,missing";
      }
      os << "," << q(notes) << "," << q(first[i] ? run_notes[i] : "") << "," << q(l.case_id) << ","
         << across_runs_csv(cell, i == b) << ","
         << (i != b && cell.ratio > 0 ? marks_csv(ratio_marks(l, i, b)) : "") << "\n";
      first[i] = false;
    }
  }
  return os.str();
}

std::string paper_table1_markdown(const std::vector<Run>& runs,
                                  std::vector<std::string>* warnings) {
  if (runs.empty() || runs.size() > 2)
    throw std::runtime_error("--table paper1 takes one CPU run and optionally one GPU run");
  Options opt;
  opt.with_transfers = true;
  opt.rate = RateKind::Gflops;
  opt.pool = false; // the CPU run and the GPU run, as given
  const Comparison c = compare_runs(runs, opt);
  if (warnings)
    *warnings = c.warnings;
  const bool gpu = runs.size() == 2;
  std::ostringstream os;
  const auto who = [&](std::size_t i) {
    const Run& r = c.runs[i];
    return markdown_cell(r.label() + " (" + r.source + (r.details.empty() ? "" : "; " + r.details) +
                         ")");
  };
  os << "CPU: " << who(0) << "  \n"
     << "GPU: " << (gpu ? who(1) : std::string("pending")) << "\n\n";
  os << "| N x N | CPU end-to-end time (ms) | CPU end-to-end GFLOPS | GPU end-to-end time (ms) | "
        "GPU end-to-end GFLOPS | end-to-end speedup |\n"
        "| --- | ---: | ---: | ---: | ---: | ---: |\n";
  const PaperView& view = paper_view("paper1");
  std::vector<const Line*> lines;
  for (const auto& l : c.lines)
    if (l.family == view.family && l.variant == view.variant &&
        l.precision == to_string(view.precision) && (!view.square || l.m == l.n))
      lines.push_back(&l);
  std::stable_sort(lines.begin(), lines.end(),
                   [](const Line* a, const Line* b) { return a->n < b->n; });
  for (const Line* l : lines) {
    const Cell& cpu = l->cells[0];
    os << "| " << l->n << " x " << l->n << " | ";
    if (cpu.present)
      os << fmt("%.4g", cpu.t_median * 1e3) << " | " << fmt("%.3g", cpu.rate)
         << marks_text(cpu.marks);
    else
      os << "- | -";
    if (!gpu) {
      os << " | pending | pending | pending |\n";
      continue;
    }
    const Cell& g = l->cells[1];
    if (g.present)
      os << " | " << fmt("%.4g", g.t_median * 1e3) << " | " << fmt("%.3g", g.rate)
         << marks_text(g.marks);
    else
      os << " | - | -";
    os << " | "
       << (g.present && cpu.present && g.ratio > 0
               ? fmt("%.1f", g.ratio) + marks_text(ratio_marks(*l, 1, 0))
               : "-")
       << " |\n";
  }
  if (lines.empty())
    os << "| (no " << view.cases() << (view.square ? " square" : "")
       << " cases in the CPU run) | | | | | |\n";
  os << "\nMeasure: end-to-end. Time: median over the repetitions of host-to-device copy + "
        "compute + device-to-host copy (on a host backend there are no copies, so it is the "
        "compute time). This is the seed paper's definition of time (data to the GPU + GPU "
        "processing + data from the GPU), with the median of the repetitions where the paper "
        "averages 10 runs. GFLOPS = 3 N^2 / time, the paper's. End-to-end speedup = GPU GFLOPS / "
        "CPU GFLOPS = CPU time / GPU time (the paper's speedup). `miniapp compare` without "
        "`--with-transfers` gives the kernel measure instead.\n";
  Marks shown;
  for (const Line* l : lines)
    for (const Cell& cell : l->cells)
      if (cell.present)
        shown |= cell.marks;
  if (shown.any())
    os << "\n" << marks_legend(shown) << "\n";
  if (!c.warnings.empty()) {
    os << "\nWarnings:\n\n";
    for (const auto& w : c.warnings)
      os << "- " << markdown_cell(w) << "\n";
  }
  return os.str();
}

} // namespace compare
} // namespace miniapp
