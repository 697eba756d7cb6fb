#include "compare/compare.hpp"
#include "compare/notes.hpp"

#include "core/backend_names.hpp"
#include "core/host_isa.hpp"
#include "core/sinks.hpp"
#include "core/text.hpp"
#include "kernels/families.hpp"
#include "compare/pooling.hpp"
#include "core/host_load.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>

namespace miniapp {
namespace compare {

namespace {

std::string size_of(const Row& r) {
  std::string s = std::to_string(r.integer("m")) + "x" + std::to_string(r.integer("n"));
  if (r.integer("k") > 0)
    s += "x" + std::to_string(r.integer("k"));
  return s;
}
std::string tile_of(const Row& r) {
  const std::int64_t tile = r.integer("tile"), cols = r.integer("tile_cols");
  if (tile <= 0)
    return "-";
  return cols > 0 && cols != tile ? std::to_string(tile) + "x" + std::to_string(cols)
                                  : std::to_string(tile);
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
  // The family table's primary rate (compute-bound families: GFLOP/s).
  return rate_is_gflops(family);
}

// The energy columns of the row (null, or absent in older files: not measured).
void energy_from(const Row& r, Cell& c) {
  if (!r.fields.is_object())
    return;
  const auto number = [&](const char* k) {
    const auto it = r.fields.find(k);
    return it != r.fields.end() && it->is_number() ? it->get<double>() : -1.0;
  };
  const auto text = [&](const char* k) {
    const auto it = r.fields.find(k);
    return it != r.fields.end() && it->is_string() ? it->get<std::string>() : std::string();
  };
  c.watts = number("power_w");
  c.per_watt = number("rate_per_watt");
  c.per_watt_unit = text("rate_per_watt_unit");
  c.energy_note = text("energy_note");
  c.clock_limit = text("clock_limit");
  c.before_energy = !r.energy_columns;
}

Cell cell_from(const Row& r, bool gflops, bool with_transfers) {
  Cell c;
  c.present = true;
  c.valid = r.valid;
  energy_from(r, c);
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

} // namespace

const char* measure_name(bool with_transfers) {
  return with_transfers ? "end-to-end" : "kernel";
}
std::string measure_definition(bool with_transfers) {
  return std::string("Measure: ") + measure_name(with_transfers) + ", from the " +
         (with_transfers ? "median total time (host-to-device + compute + device-to-host)"
                         : "median compute time (the kernel launches alone)");
}

std::string gflops_families() {
  return join(family_names_where([](const Family& f) { return f.rate == Rate::gflops; }), ", ");
}
std::string auto_rate_legend() {
  return "GFLOP/s for " + gflops_families() + ", GB/s otherwise";
}

void name_runs(std::vector<Run>& runs, const std::vector<std::string>& inputs,
               const std::vector<std::string>& names, bool pool) {
  for (const auto& item : names) {
    const auto eq = item.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == item.size())
      throw std::invalid_argument("--name " + item +
                                  ": expected RUN=LABEL (RUN a run as given, "
                                  "or its number from 1)");
    const std::string run = item.substr(0, eq), label = item.substr(eq + 1);
    std::size_t index = runs.size();
    for (std::size_t i = 0; i < inputs.size() && i < runs.size(); ++i)
      if (inputs[i] == run || runs[i].source == run)
        index = i;
    if (index == runs.size() && !run.empty() &&
        run.find_first_not_of("0123456789") == std::string::npos && run.size() < 6 &&
        std::stoul(run) >= 1 && std::stoul(run) <= runs.size())
      index = std::stoul(run) - 1;
    if (index == runs.size())
      throw std::invalid_argument("--name " + item + ": " + run +
                                  " is not one of the runs compared (give it as on the command "
                                  "line, or its number from 1)");
    runs[index].given_label = label;
  }
  // Runs that would share a label take their directory's name too (pinned vs unpinned runs of
  // one config, say), so no two runs look alike in a legend or a table. Where runs are pooled,
  // repeats of one experiment on one machine (pool_runs' rule) are one side: they share one
  // suffix, their directories joined ("[a + b]"), and stay one side.
  const auto experiment = [&](const Run& r) {
    const std::string key = pool ? pool_key(r) : "";
    return key.empty() ? r.source + '\n' + std::to_string(&r - runs.data()) : key;
  };
  const auto directory = [](std::string where) {
    while (where.size() > 1 && where.back() == '/')
      where.pop_back();
    for (const char* file : {"/results.json", "/results.csv"}) {
      const std::size_t n = std::strlen(file);
      if (where.size() > n && where.compare(where.size() - n, n, file) == 0)
        where.resize(where.size() - n);
    }
    return where.substr(where.rfind('/') + 1);
  };
  std::map<std::string, std::set<std::string>> experiments; // label -> its experiments
  std::map<std::string, std::string> suffix;                // experiment -> its directories
  for (const auto& r : runs) {
    experiments[r.label()].insert(experiment(r));
    std::string& dirs = suffix[experiment(r)];
    dirs += (dirs.empty() ? "" : " + ") + directory(r.source);
  }
  for (auto& r : runs)
    if (experiments[r.label()].size() > 1)
      r.given_label = r.label() + " [" + suffix[experiment(r)] + "]";
}

std::string join_key(const Row& row, bool by_id, const std::string& ignore_param) {
  if (!by_id)
    return row.family + "|" + row.variant + "|" + row.precision + "|" + size_of(row) + "|" +
           tile_of(row);
  std::string id = row.case_id; // "/pinned" is a flag's segment, not a name=value one
  const std::size_t at = id.find("/pinned");
  if (at != std::string::npos && (at + 7 == id.size() || id[at + 7] == '/'))
    id.erase(at, 7);
  return without_param(id, ignore_param);
}

Comparison compare_runs(const std::vector<Run>& given, const Options& given_opt) {
  if (given.empty())
    throw std::runtime_error("nothing to compare: no runs given");
  if (given_opt.baseline >= given.size())
    throw std::runtime_error("baseline run " + std::to_string(given_opt.baseline + 1) +
                             " does not exist (" + std::to_string(given.size()) + " run(s) given)");
  // --- noise across runs (compare/pooling.hpp): runs of one experiment on one machine are
  // one side.
  const Pooling pooling = given_opt.pool ? pool_runs(given, given_opt.baseline)
                                         : Pooling{given, given_opt.baseline, {}};
  const std::vector<Run>& runs = pooling.runs;
  Options opt = given_opt;
  opt.baseline = pooling.baseline;
  // ---
  Comparison c;
  c.options = opt;
  c.run_warnings = pooling.repeats; // a run given twice: counted once
  c.run_warnings.insert(c.run_warnings.end(), pooling.splits.begin(), pooling.splits.end());
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
      // The host BLAS decides only the vendor rows and the vendor GEMM ceilings of a run.
      const bool blas_used =
          std::any_of(runs[i].rows.begin(), runs[i].rows.end(), [](const Row& r) {
            const Family* f = find_family(r.family);
            return (f && f->ceiling == Ceiling::vendor_gemm && r.variant == f->ceiling_variant) ||
                   r.ceiling.rfind("vendor GEMM", 0) == 0;
          });
      const auto blas = runs[i].metadata.find("host_blas");
      if (blas_used && blas != runs[i].metadata.end() && blas->is_string())
        if (const std::string w = blas_under_use(blas->get<std::string>(), text("offered"));
            !w.empty())
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

  // Join by join_key (the case id less pinned, or where a run lacks ids the schema 1 key); the n-th
  // row with the same key in each run pairs with the n-th in the others (a sweep over alpha in
  // schema 1, say). Baseline rows come first.
  const bool by_id = std::all_of(runs.begin(), runs.end(), [](const Run& r) {
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
      std::string key = join_key(row, by_id, opt.ignore_param);
      key += "#" + std::to_string(seen[key]++);
      auto it = index.find(key);
      if (it == index.end()) {
        it = index.emplace(key, c.lines.size()).first;
        Line l;
        l.case_id = by_id ? join_key(row, true, opt.ignore_param) : "";
        l.family = row.family;
        l.variant = row.variant;
        l.precision = row.precision;
        l.size = size_of(row);
        l.tile = tile_of(row);
        l.m = row.integer("m");
        l.n = row.integer("n");
        l.k = row.integer("k");
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
      if (opt.keep_rows)
        line.cells[i].row = *row;
      describe_spread(line.cells[i], *row, runs[i], opt.with_transfers); // run_pooling.hpp
      if (!line.cells[i].ceiling_uncertain.empty())
        notes.push_back({"ceiling " + line.cells[i].ceiling_uncertain +
                             " (its estimates did not agree, or its level read slower than a "
                             "farther one) in " +
                             run_name(c, i),
                         case_name(line)});
      if (line.cells[i].marks.disturbed)
        notes.push_back({"ceiling disturbed (re-checked after the case, it had moved by more "
                         "than its spread) in " +
                             run_name(c, i),
                         case_name(line)});
      if (line.cells[i].marks.busy)
        notes.push_back({"busy host around the case (other work beside it, or a 1-minute load "
                         "average above the host's CPUs, so its times include other work) in " +
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
      param_notes(case_name(line), *rows_of[li][b], *rows_of[li][i], run_name(c, b), run_name(c, i),
                  on_device, notes);
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

Marks ratio_marks(const Line& l, std::size_t cell, std::size_t baseline) {
  return l.cells[cell].marks | l.cells[baseline].marks;
}

Marks marks_shown(const Comparison& c) {
  Marks shown;
  for (const Line& l : c.lines)
    for (const Cell& cell : l.cells)
      if (cell.present)
        shown |= cell.marks;
  return shown;
}

bool energy_recorded(const Comparison& c) {
  for (const Line& l : c.lines)
    for (const Cell& cell : l.cells)
      if (cell.present && (cell.watts >= 0 || !cell.energy_note.empty()))
        return true;
  return false;
}

} // namespace compare
} // namespace miniapp
