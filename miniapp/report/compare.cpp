#include "report/compare.hpp"

#include "core/host_isa.hpp"
#include "core/sinks.hpp"
#include "core/text.hpp"
#include "kernels/families.hpp"
#include "report/results_writer.hpp"
#include "report/run_pooling.hpp"
#include "core/host_load.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>
#include <stdexcept>

namespace miniapp {
namespace compare {

namespace {} // namespace

std::string rate_str(double v) {
  return fmt(v >= 100 ? "%.1f" : v >= 1 ? "%.2f" : "%.3g", v);
}
std::string ms(double seconds) {
  return fmt("%.4g", seconds * 1e3);
}

namespace {

std::string size_of(const Row& r) {
  std::string s = std::to_string(r.m) + "x" + std::to_string(r.n);
  if (r.k > 0)
    s += "x" + std::to_string(r.k);
  return s;
}
std::string tile_of(const Row& r) {
  if (r.tile <= 0)
    return "-";
  return r.tile_cols > 0 && r.tile_cols != r.tile
             ? std::to_string(r.tile) + "x" + std::to_string(r.tile_cols)
             : std::to_string(r.tile);
}
std::string case_name(const Line& l) {
  if (!l.case_id.empty())
    return l.case_id;
  std::string s = l.family + "/" + l.variant + "/" + l.precision + "/" + l.size;
  if (l.tile != "-")
    s += "/tile " + l.tile;
  return s;
}
std::string run_name(const Comparison& c, std::size_t i) {
  return "run " + std::to_string(i + 1) + " (" + c.runs[i].label() + ")";
}
bool primary_is_gflops(const std::string& family, RateKind kind) {
  if (kind == RateKind::Gflops)
    return true;
  if (kind == RateKind::Gbs)
    return false;
  // The family table's primary rate (compute-bound families: GFLOP/s); a family this build does
  // not know (a results file of another version) is judged by GB/s.
  const Family* f = find_family(family);
  return f && f->rate == Rate::gflops;
}

Cell cell_from(const Row& r, bool gflops, bool with_transfers) {
  Cell c;
  c.present = true;
  c.valid = r.valid;
  if (!with_transfers) {
    c.times = r.compute_times;
    c.rate = gflops ? r.gflops : r.gbs;
    c.t_min = r.time_min;
    c.t_median = r.time_median;
    c.t_max = r.time_max;
    return c;
  }
  // Only the median total is recorded; shift the compute range by the median transfer time.
  const double transfers = std::max(0.0, r.total_median - r.time_median);
  if (r.h2d_times.size() == r.compute_times.size() && r.d2h_times.size() == r.compute_times.size())
    for (std::size_t i = 0; i < r.compute_times.size(); ++i)
      c.times.push_back(r.h2d_times[i] + r.compute_times[i] + r.d2h_times[i]);
  c.t_median = r.total_median;
  c.t_min = r.time_min + transfers;
  c.t_max = r.time_max + transfers;
  const double work = gflops ? r.flops : r.bytes;
  c.rate = r.total_median > 0 ? work / r.total_median / 1e9 : 0;
  return c;
}

std::string describe(double v) {
  std::string s = fmt("%.6g", v);
  return s;
}

// A warning about one case: what is wrong (the same text for every case it applies to, so the
// cases can be counted under it) and the case.
struct CaseNote {
  std::string what, where;
};

void param_notes(const Line& line, const Row& base, const Row& other, const std::string& base_name,
                 const std::string& other_name, bool on_device, std::vector<CaseNote>& notes) {
  const auto differ = [&](const char* what, const std::string& a, const std::string& b) {
    if (a != b)
      notes.push_back({std::string(what) + " differs: " + a + " in " + base_name + ", " + b +
                           " in " + other_name,
                       case_name(line)});
  };
  // A parameter one side's variant does not use (null in its file) is no difference.
  const auto both = [&](Param p) { return base.uses(p) && other.uses(p); };
  if (both(Param::alpha))
    differ("alpha", describe(base.alpha), describe(other.alpha));
  if (both(Param::beta))
    differ("beta", describe(base.beta), describe(other.beta));
  differ("seed", std::to_string(base.seed), std::to_string(other.seed));
  differ("repetitions", std::to_string(base.repetitions), std::to_string(other.repetitions));
  differ("warmup", std::to_string(base.warmup), std::to_string(other.warmup));
  if (both(Param::team_size))
    differ("team_size", std::to_string(base.team_size), std::to_string(other.team_size));
  // (a file written before shapes has none: no note, the run's default is not known)
  if (both(Param::shape) && !base.shape.empty() && !other.shape.empty())
    differ("shape", base.shape, other.shape);
  if (both(Param::in_place))
    differ("in_place", base.in_place ? "true" : "false", other.in_place ? "true" : "false");
  if (on_device) // host memory is what a host backend computes in: pinning changes nothing
    differ("pinned", base.pinned ? "true" : "false", other.pinned ? "true" : "false");
}

// "<what> in 3 cases: a, b, c" with at most kListed cases named.
std::vector<std::string> aggregate(const std::vector<CaseNote>& notes) {
  constexpr std::size_t kListed = 6;
  std::vector<std::string> kinds;
  std::map<std::string, std::vector<std::string>> cases;
  for (const auto& n : notes) {
    auto& list = cases[n.what];
    if (list.empty())
      kinds.push_back(n.what);
    list.push_back(n.where);
  }
  std::vector<std::string> out;
  for (const auto& k : kinds) {
    const auto& list = cases[k];
    std::string s =
        k + " in " + std::to_string(list.size()) + (list.size() == 1 ? " case: " : " cases: ");
    for (std::size_t i = 0; i < list.size() && i < kListed; ++i)
      s += (i ? ", " : "") + list[i];
    if (list.size() > kListed)
      s += " and " + std::to_string(list.size() - kListed) + " more";
    out.push_back(s);
  }
  return out;
}

} // namespace

bool host_backend(const std::string& b) {
  return b == "serial" || b == "openmp" || b == "threads" || b == "hpx";
}

std::string Run::shape() const {
  if (ranks <= 0 && threads <= 0)
    return "?";
  return (ranks > 0 ? std::to_string(ranks) : std::string("?")) + "x" +
         (threads > 0 ? std::to_string(threads) : std::string("?"));
}

std::string Run::label() const {
  if (!given_label.empty())
    return given_label;
  std::string s = backend.empty() ? "unknown backend" : backend;
  if (ranks > 0 || threads > 0)
    s += " " + shape();
  if (!device.empty())
    s += " on " + device;
  if (!host.empty())
    s += " (" + host + ")";
  return s;
}
Comparison compare_runs(const std::vector<Run>& given, const Options& given_opt) {
  if (given.empty())
    throw std::runtime_error("nothing to compare: no runs given");
  if (given_opt.baseline >= given.size())
    throw std::runtime_error("baseline run " + std::to_string(given_opt.baseline + 1) +
                             " does not exist (" + std::to_string(given.size()) + " run(s) given)");
  // --- noise across runs (report/run_pooling.hpp): runs of one experiment on one machine are
  // one side.
  const Pooling pooling = given_opt.pool ? pool_runs(given, given_opt.baseline)
                                         : Pooling{given, given_opt.baseline, {}};
  const std::vector<Run>& runs = pooling.runs;
  Options opt = given_opt;
  opt.baseline = pooling.baseline;
  // ---
  Comparison c;
  c.options = opt;
  for (const auto& r : runs) {
    Run id = r;
    id.rows.clear();
    c.runs.push_back(id);
  }
  const std::size_t b = opt.baseline;

  // Run-level warnings, one line per kind.
  std::string busy;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    if (!runs[i].complete)
      c.run_warnings.push_back(run_name(c, i) + " is incomplete (interrupted or failed)");
    if (host_backend(runs[i].backend) && runs[i].metadata.is_object() &&
        runs[i].metadata.contains("host_isa") && runs[i].metadata["host_isa"].is_object()) {
      const auto& isa = runs[i].metadata["host_isa"];
      const auto text = [&](const char* key) {
        return isa.contains(key) && isa[key].is_string() ? isa[key].get<std::string>() : "";
      };
      if (const std::string w = isa_under_use(text("built_for"), text("offered")); !w.empty())
        c.run_warnings.push_back(run_name(c, i) + ": " + w);
    }
    if (host_busy(runs[i].load1, runs[i].host_cpus))
      busy += (busy.empty() ? "" : ", ") + std::string("run ") + std::to_string(i + 1) +
              " (load average " + fmt("%.2f", runs[i].load1) + " on " +
              std::to_string(runs[i].host_cpus) + " CPUs)";
    if (i == b)
      continue;
    // One config on two backends is the comparison users make most: it shares the experiment
    // hash (the config hash without the backend), recorded since results carry it.
    const bool same_experiment =
        !runs[i].experiment_hash.empty() && runs[i].experiment_hash == runs[b].experiment_hash;
    if (!same_experiment && !runs[i].config_hash.empty() && !runs[b].config_hash.empty() &&
        runs[i].config_hash != runs[b].config_hash)
      c.run_warnings.push_back("config differs: " + run_name(c, i) + " has config hash " +
                               runs[i].config_hash + ", baseline " + run_name(c, b) + " has " +
                               runs[b].config_hash);
    const auto differ = [&](const char* what, const std::string& mine, const std::string& base,
                            const char* why) {
      if (!mine.empty() && !base.empty() && mine != base)
        c.run_warnings.push_back(std::string(what) + " differ: " + base + " in " + run_name(c, b) +
                                 ", " + mine + " in " + run_name(c, i) + " (" + why + ")");
    };
    const auto known = [](int v) { return v > 0 ? std::to_string(v) : std::string(); };
    differ("MPI ranks", known(runs[i].ranks), known(runs[b].ranks),
           "the work is split differently");
    // Host threads decide a host run's speed, not a GPU run's (they only prepare its data).
    if (host_backend(runs[i].backend) && host_backend(runs[b].backend)) {
      differ("threads per rank", known(runs[i].threads), known(runs[b].threads),
             "host kernels run on a different number of threads");
      differ("thread bindings", runs[i].binding, runs[b].binding,
             "threads may share cores or move between them");
    }
  }
  if (!busy.empty())
    c.run_warnings.push_back(
        "busy host when the run started (more runnable tasks than CPUs, so its times include "
        "other work): " +
        busy);
  c.warnings = c.run_warnings;

  // Join on the case id, or where a run lacks it (schema 1) on (family, variant, precision, m, n,
  // k, tile); the n-th row with the same key in each run pairs with the n-th in the others (a
  // sweep over alpha in schema 1, say). Baseline rows come first.
  const bool by_id = opt.by_case_id && std::all_of(runs.begin(), runs.end(), [](const Run& r) {
                       return std::all_of(r.rows.begin(), r.rows.end(),
                                          [](const Row& row) { return !row.case_id.empty(); });
                     });
  std::map<std::string, std::size_t> index;
  std::vector<std::vector<const Row*>> rows_of; // per line, per run
  std::vector<std::size_t> order(runs.size());
  order[0] = b;
  for (std::size_t i = 0, j = 1; i < runs.size(); ++i)
    if (i != b)
      order[j++] = i;
  for (std::size_t i : order) {
    std::map<std::string, int> seen;
    for (const auto& row : runs[i].rows) {
      std::string key = by_id ? row.case_id
                              : row.family + "|" + row.variant + "|" + row.precision + "|" +
                                    size_of(row) + "|" + tile_of(row);
      if (by_id) // --ignore-param (report/run_pooling.hpp)
        key = without_param(key, opt.ignore_param);
      key += "#" + std::to_string(seen[key]++);
      auto it = index.find(key);
      if (it == index.end()) {
        it = index.emplace(key, c.lines.size()).first;
        Line l;
        l.case_id = by_id ? without_param(row.case_id, opt.ignore_param) : "";
        l.family = row.family;
        l.variant = row.variant;
        l.precision = row.precision;
        l.size = size_of(row);
        l.tile = tile_of(row);
        l.m = row.m;
        l.n = row.n;
        l.k = row.k;
        l.unit = primary_is_gflops(row.family, opt.rate) ? "GFLOP/s" : "GB/s";
        l.cells.resize(runs.size());
        c.lines.push_back(l);
        rows_of.emplace_back(runs.size(), nullptr);
      }
      rows_of[it->second][i] = &row;
    }
  }

  std::vector<CaseNote> all_notes;
  for (std::size_t li = 0; li < c.lines.size(); ++li) {
    Line& line = c.lines[li];
    const bool gflops = line.unit == "GFLOP/s";
    std::vector<CaseNote> notes;
    for (std::size_t i = 0; i < runs.size(); ++i) {
      const Row* row = rows_of[li][i];
      if (!row) {
        notes.push_back({"missing from " + run_name(c, i), case_name(line)});
        continue;
      }
      line.cells[i] = cell_from(*row, gflops, opt.with_transfers);
      describe_spread(line.cells[i], *row, runs[i], opt.with_transfers); // run_pooling.hpp
      if (line.cells[i].busy)
        notes.push_back({"busy host around the case (1-minute load average above the host's "
                         "CPUs, so its times include other work) in " +
                             run_name(c, i),
                         case_name(line)});
      if (row->valid != "true")
        notes.push_back({"valid=" + (row->valid.empty() ? std::string("missing") : row->valid) +
                             " (status " + row->status + ") in " + run_name(c, i),
                         case_name(line)});
    }
    const Cell& base = line.cells[b];
    for (std::size_t i = 0; i < runs.size(); ++i) {
      Cell& cell = line.cells[i];
      if (i == b || !cell.present || !base.present)
        continue;
      cell.ratio = base.rate > 0 ? cell.rate / base.rate : 0;
      const bool on_device = !host_backend(runs[b].backend) || !host_backend(runs[i].backend);
      param_notes(line, *rows_of[li][b], *rows_of[li][i], run_name(c, b), run_name(c, i), on_device,
                  notes);
      for (const auto& what : judge(cell, base, run_name(c, b), run_name(c, i))) // run_pooling
        notes.push_back({what, case_name(line)});
    }
    for (const auto& n : notes)
      line.notes.push_back(n.what);
    all_notes.insert(all_notes.end(), notes.begin(), notes.end());
  }
  const auto per_kind = aggregate(all_notes);
  c.warnings.insert(c.warnings.end(), per_kind.begin(), per_kind.end());
  return c;
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
                                            : "GFLOP/s for matmul, GB/s otherwise")
     << ", from the "
     << (c.options.with_transfers ? "median total time (host-to-device + compute + device-to-host)"
                                  : "median compute time")
     << ". Time: median [min, max] in ms over the repetitions"
     << (c.options.with_transfers ? " (range estimated: compute range + median transfer time)" : "")
     << ". " << significance_legend(b) << "\n\n";

  os << "| case | size | tile | unit |";
  for (std::size_t i = 0; i < nr; ++i)
    os << " run " << i + 1
       << (c.runs[i].shape() == "?" ? std::string() : " (" + c.runs[i].shape() + ")")
       << " rate | run " << i + 1 << " time ms | run " << i + 1 << " spread |";
  for (std::size_t i = 0; i < nr; ++i)
    if (i != b)
      os << " run " << i + 1 << " / run " << b + 1 << " |";
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
         << (cell.busy ? " (busy)" : "") << " | " << ms(cell.t_median) << " [" << ms(cell.t_min)
         << ", " << ms(cell.t_max) << "] | " << spread_text(cell) << " |";
    }
    for (std::size_t i = 0; i < nr; ++i) {
      if (i == b)
        continue;
      const Cell& cell = l.cells[i];
      if (!cell.present || !l.cells[b].present || cell.ratio <= 0)
        os << " - |";
      else
        os << " " << ratio_text(cell) << " |";
    }
    os << "\n";
  }
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
        "baseline,with_transfers,unit,rate,time_min_s,time_median_s,time_max_s,ratio_to_baseline,"
        "within_noise,p_value,valid,notes,run_warnings,case_id,mark,test,rounds,cv,busy\n";
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
         << "," << (c.options.with_transfers ? "true" : "false") << "," << l.unit << ",";
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
         << across_runs_csv(cell, i == b) << "\n";
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
  opt.by_case_id = false; // one line per N, pinned transfers or not
  opt.pool = false;       // the CPU run and the GPU run, as given
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
  os << "| N x N | CPU time (ms) | CPU GFLOPS | GPU time (ms) | GPU GFLOPS | speedup |\n"
        "| --- | ---: | ---: | ---: | ---: | ---: |\n";
  std::vector<const Line*> lines;
  for (const auto& l : c.lines)
    if (l.family == "axpby" && l.variant == "flat" && l.precision == "float32" && l.m == l.n)
      lines.push_back(&l);
  std::stable_sort(lines.begin(), lines.end(),
                   [](const Line* a, const Line* b) { return a->n < b->n; });
  for (const Line* l : lines) {
    const Cell& cpu = l->cells[0];
    os << "| " << l->n << " x " << l->n << " | ";
    if (cpu.present)
      os << fmt("%.4g", cpu.t_median * 1e3) << " | " << fmt("%.3g", cpu.rate);
    else
      os << "- | -";
    if (!gpu) {
      os << " | pending | pending | pending |\n";
      continue;
    }
    const Cell& g = l->cells[1];
    if (g.present)
      os << " | " << fmt("%.4g", g.t_median * 1e3) << " | " << fmt("%.3g", g.rate);
    else
      os << " | - | -";
    os << " | " << (g.present && cpu.present && g.ratio > 0 ? fmt("%.1f", g.ratio) : "-") << " |\n";
  }
  if (lines.empty())
    os << "| (no axpby/flat/float32 square cases in the CPU run) | | | | | |\n";
  os << "\nTime: median over the repetitions of host-to-device copy + compute + device-to-host "
        "copy "
        "(on a host backend the copies are none, so it is the compute time). GFLOPS = 3 N^2 / "
        "time. "
        "Speedup = GPU GFLOPS / CPU GFLOPS.\n";
  if (!c.warnings.empty()) {
    os << "\nWarnings:\n\n";
    for (const auto& w : c.warnings)
      os << "- " << markdown_cell(w) << "\n";
  }
  return os.str();
}

} // namespace compare
} // namespace miniapp
