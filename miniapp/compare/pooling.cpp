#include "compare/pooling.hpp"

#include "core/backend_names.hpp"
#include "core/case_fields.hpp"
#include "core/host_load.hpp"
#include "core/result.hpp"
#include "core/text.hpp"
#include "compare/mann_whitney.hpp"
#include "compare/welch.hpp"
#include "results/run_id.hpp"

#include <algorithm>
#include <cmath>
#include <map>

namespace miniapp {
namespace compare {

std::string pool_key(const Run& r) {
  if (r.config_hash.empty())
    return "";
  // A run written before samples were chained (its rows have no launches_per_sample) timed
  // every launch with its fence: pooled with a newer run of the same config it would mix two
  // measurements into one side, where compare would otherwise note `timing differs`.
  const bool chained = std::any_of(r.rows.begin(), r.rows.end(), [](const Row& row) {
    return row.integer("launches_per_sample") > 0;
  });
  return r.config_hash + "\n" + r.label() + "\n" + r.host + (chained ? "\nchained" : "") + "\n" +
         run_setup(r);
}

std::string run_setup(const Run& r) {
  // (a GPU backend's host threads are idle: its ranks and device say what ran)
  const bool gpu = !r.backend.empty() && !host_backend(r.backend);
  return (gpu ? (r.ranks > 0 ? std::to_string(r.ranks) : std::string("?")) + " rank(s)"
              : r.shape()) +
         " on " + (r.device.empty() ? std::string("?") : r.device);
}

namespace {

std::vector<double> list_field(const Row& r, const char* key) {
  const auto it = r.fields.find(key);
  if (it == r.fields.end() || !it->is_array())
    return {};
  std::vector<double> out;
  for (const auto& v : *it)
    if (v.is_number())
      out.push_back(v.get<double>());
  return out;
}

double number_field(const Row& r, const char* key, double missing) {
  const auto it = r.fields.find(key);
  return it != r.fields.end() && it->is_number() ? it->get<double>() : missing;
}

double median_of(std::vector<double> v) {
  return v.empty() ? 0 : summarize(std::move(v)).median;
}

// Rows of one case in several runs, pooled into the first one's copy.
Row pool_rows(const std::vector<const Row*>& rows) {
  Row out = *rows.front();
  std::vector<double> compute, h2d, d2h, units, total_units, medians, totals;
  bool every_rep = true;
  double load = -1, others = -1;
  out.time_min = HUGE_VAL;
  out.time_max = 0;
  for (const Row* r : rows) {
    every_rep = every_rep && !r->compute_times.empty() &&
                r->h2d_times.size() == r->compute_times.size() &&
                r->d2h_times.size() == r->compute_times.size();
    compute.insert(compute.end(), r->compute_times.begin(), r->compute_times.end());
    h2d.insert(h2d.end(), r->h2d_times.begin(), r->h2d_times.end());
    d2h.insert(d2h.end(), r->d2h_times.begin(), r->d2h_times.end());
    for (const double u : round_units(*r, false))
      units.push_back(u);
    for (const double u : round_units(*r, true))
      total_units.push_back(u);
    medians.push_back(r->time_median);
    totals.push_back(r->total_median);
    if (r->time_median > 0) { // a row that did not run has no times
      out.time_min = std::min(out.time_min, r->time_min);
      out.time_max = std::max(out.time_max, r->time_max);
    }
    load = std::max(load, number_field(*r, "host_load", -1));
    others = std::max(others, number_field(*r, "host_others", -1));
    // A mark of any run's row is the pooled row's (core/marks.hpp).
    if (r->flag("ceiling_disturbed"))
      out.fields["ceiling_disturbed"] = true;
    if (number_field(*r, "ceiling_high", 0) > 0 && !(number_field(out, "ceiling_high", 0) > 0))
      for (const char* key : {"ceiling_low", "ceiling_high"})
        out.fields[key] = r->fields[key];
    if (out.valid == "true" && r->valid != "true") {
      out.valid = r->valid;
      out.status = r->status;
    }
  }
  if (out.time_min == HUGE_VAL)
    out.time_min = 0;
  if (every_rep) {
    out.compute_times = compute;
    out.h2d_times = h2d;
    out.d2h_times = d2h;
    std::vector<double> total(compute.size());
    for (std::size_t i = 0; i < compute.size(); ++i)
      total[i] = h2d[i] + compute[i] + d2h[i];
    out.time_median = median_of(compute);
    out.total_median = median_of(total);
  } else { // a row without repetition times: the runs' medians stand for them
    out.compute_times.clear();
    out.h2d_times.clear();
    out.d2h_times.clear();
    out.time_median = median_of(medians);
    out.total_median = median_of(totals);
  }
  if (out.time_median > 0 && out.flops > 0)
    out.gflops = out.flops / out.time_median * 1e-9;
  if (out.time_median > 0 && out.bytes > 0)
    out.gbs = out.bytes / out.time_median * 1e-9;
  out.fields["round_medians_s"] = units;
  out.fields["round_total_medians_s"] = total_units;
  out.fields["rounds"] = units.size();
  out.fields["host_load"] = load < 0 ? nlohmann::json() : nlohmann::json(load);
  out.fields["host_others"] = others < 0 ? nlohmann::json() : nlohmann::json(others);
  return out;
}

std::string row_key(const Row& r) {
  if (!r.case_id.empty())
    return r.case_id;
  // Files before case ids (schema 1): the parameters they had.
  std::string key = r.family + "|" + r.variant + "|" + r.precision;
  for (const char* sep_name : {"|m", "xn", "xk", "|tile", "xtile_cols"})
    key += std::string(1, sep_name[0]) + std::to_string(r.integer(sep_name + 1));
  return key;
}

Run pool_members(const std::vector<Run>& given, const std::vector<std::size_t>& members) {
  Run out = given[members.front()];
  out.rows.clear();
  std::vector<std::string> order;
  std::map<std::string, std::vector<const Row*>> rows;
  for (const std::size_t m : members) {
    const Run& r = given[m];
    if (m != members.front()) {
      out.source += " + " + r.source;
      out.complete = out.complete && r.complete;
      out.load1 = std::max(out.load1, r.load1);
    }
    std::map<std::string, int> seen; // the n-th row of a key pairs with the n-th
    for (const Row& row : r.rows) {
      const std::string key = row_key(row) + "#" + std::to_string(seen[row_key(row)]++);
      auto& list = rows[key];
      if (list.empty())
        order.push_back(key);
      list.push_back(&row);
    }
  }
  for (const auto& key : order)
    out.rows.push_back(pool_rows(rows[key]));
  out.details += (out.details.empty() ? "" : ", ") + std::to_string(members.size()) +
                 " runs pooled (same config hash, label and host)";
  return out;
}

} // namespace

std::string run_identity(const Run& r) {
  if (!r.metadata.is_object() ||
      (!r.metadata.contains("run_id") && !r.metadata.contains("start_time")))
    return "";
  return run_id_of({{"metadata", r.metadata}, {"config", {{"name", r.experiment}}}});
}

Pooling pool_runs(const std::vector<Run>& given, std::size_t baseline) {
  Pooling p;
  std::map<std::string, std::size_t> pool_of;
  std::map<std::string, std::size_t> first_of; // key and run id -> the given run that brought it
  for (std::size_t i = 0; i < given.size(); ++i) {
    const std::string key = pool_key(given[i]);
    const std::string id = key.empty() ? "" : run_identity(given[i]);
    const auto seen = id.empty() ? first_of.end() : first_of.find(key + "\n" + id);
    if (seen != first_of.end()) {
      p.repeats.push_back("run " + std::to_string(i + 1) + " (" + given[i].source + ") is run " +
                          std::to_string(seen->second + 1) + " (" + given[seen->second].source +
                          ") again (run id " + id + "): counted once");
    } else if (const auto it = key.empty() ? pool_of.end() : pool_of.find(key);
               it != pool_of.end()) {
      p.members[it->second].push_back(i);
    } else {
      if (!key.empty())
        pool_of[key] = p.members.size();
      p.members.push_back({i});
    }
    if (!id.empty())
      first_of.emplace(key + "\n" + id, i);
    if (i == baseline)
      p.baseline = key.empty() ? p.members.size() - 1 : pool_of[key];
  }
  for (const auto& m : p.members)
    p.runs.push_back(m.size() == 1 ? given[m.front()] : pool_members(given, m));
  // Sides that pool_key kept apart only for their setup: one warning per experiment so split.
  std::map<std::string, std::vector<std::size_t>> by_experiment; // key without setup -> pools
  for (std::size_t k = 0; k < p.members.size(); ++k) {
    const std::string key = pool_key(given[p.members[k].front()]);
    if (!key.empty())
      by_experiment[key.substr(0, key.rfind('\n'))].push_back(k);
  }
  for (const auto& [key, pools] : by_experiment) {
    if (pools.size() < 2)
      continue;
    std::string sides;
    for (const std::size_t k : pools) {
      std::string runs;
      for (const std::size_t m : p.members[k])
        runs += (runs.empty() ? "" : ", ") + std::to_string(m + 1);
      sides += (sides.empty() ? "" : "; ") + run_setup(p.runs[k]) +
               (p.members[k].size() == 1 ? ": run " : ": runs ") + runs;
    }
    p.splits.push_back("runs labelled '" + p.runs[pools.front()].label() +
                       "' differ in ranks x threads or device (" + sides +
                       "): not pooled, one side each");
  }
  return p;
}

// The tuning parameters of the case-field table (core/case_fields.cpp), each with its segment in
// the id: "/tile=16[x3]", "/team=8", "/shape=...", "/<name>=" for a table parameter.
namespace {
std::string id_segment(const CaseField& f) {
  if (f.in_table())
    return "/" + std::string(f.name) + "=";
  return f.id_segment ? f.id_segment : "";
}
} // namespace

const std::vector<std::string>& ignorable_params() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const auto& f : case_fields())
      if (!id_segment(f).empty())
        out.push_back(f.name);
    return out;
  }();
  return names;
}

std::string without_param(const std::string& case_id, const std::string& param) {
  const CaseField* f = find_case_field(param);
  const std::string segment = f ? id_segment(*f) : "";
  if (segment.empty())
    return case_id;
  const auto at = case_id.find(segment);
  if (at == std::string::npos)
    return case_id;
  const auto end = case_id.find('/', at + 1);
  return case_id.substr(0, at) + (end == std::string::npos ? "" : case_id.substr(end));
}

std::vector<double> round_units(const Row& r, bool with_transfers) {
  std::vector<double> units =
      list_field(r, with_transfers ? "round_total_medians_s" : "round_medians_s");
  const double median = with_transfers ? r.total_median : r.time_median;
  if (units.empty() && median > 0)
    units.push_back(median);
  return units;
}

void describe_spread(Cell& cell, const Row& row, const Run& run, bool with_transfers) {
  cell.rounds = round_units(row, with_transfers);
  const bool of_rounds = cell.rounds.size() >= 2;
  cell.cv = coefficient_of_variation(of_rounds ? cell.rounds : cell.times);
  cell.cv_of_rounds = of_rounds;
  cell.marks = marks_of(row, run.host_cpus);
  cell.ceiling_uncertain = row_ceiling_uncertain(row);
}

std::string row_ceiling_uncertain(const Row& row) {
  const double low = row.number("ceiling_low"), high = row.number("ceiling_high");
  if (!(high > 0))
    return "";
  return uncertain_text(low, high) + (row.ceiling_unit.empty() ? "" : " " + row.ceiling_unit);
}

bool row_busy(const Row& row, const Run& run) {
  return marks_of(row, run.host_cpus).busy;
}

std::vector<std::string> judge(Cell& cell, const Cell& base, const std::string& base_name,
                               const std::string& name) {
  std::vector<std::string> notes;
  if (cell.rounds.size() >= kMinRounds && base.rounds.size() >= kMinRounds) {
    cell.p_value = welch_log_p(cell.rounds, base.rounds);
    if (cell.p_value >= 0) { // else a side's noise is unknown: as without rounds
      cell.test = Test::rounds;
      cell.within_noise = cell.p_value >= kAlpha;
      return notes;
    }
  }
  const auto count = [](std::size_t n) {
    return std::to_string(n) + (n == 1 ? " round" : " rounds");
  };
  const bool enough = cell.rounds.size() >= kMinRounds && base.rounds.size() >= kMinRounds;
  notes.push_back("run-to-run spread unknown (" + count(base.rounds.size()) + " in " + base_name +
                  ", " + count(cell.rounds.size()) + " in " + name +
                  (enough ? "; the rounds of one side all took the same time, or a time is not "
                            "positive"
                          : "; a test across runs needs " + std::to_string(kMinRounds) +
                                " or more a side: miniapp run --rounds N, or more runs") +
                  "): the mark is from the repetitions within the runs");
  cell.p_value = mann_whitney_p(cell.times, base.times);
  if (cell.p_value < 0) {
    cell.test = Test::ranges;
    cell.within_noise = !(cell.t_max < base.t_min || base.t_max < cell.t_min);
    return notes;
  }
  cell.test = Test::repetitions;
  cell.within_noise = cell.p_value >= kAlpha;
  if (smallest_p(cell.times.size(), base.times.size()) >= kAlpha)
    notes.push_back("too few repetitions for the significance test to reach p < " +
                    fmt("%g", kAlpha) + " (" + std::to_string(base.times.size()) + " in " +
                    base_name + ", " + std::to_string(cell.times.size()) + " in " + name +
                    "; 4 or more each are needed)");
  return notes;
}

const char* mark(const Cell& cell) {
  switch (cell.test) {
  case Test::rounds:
    return cell.within_noise ? "~" : "*";
  case Test::repetitions:
    return cell.within_noise ? "~" : "?";
  case Test::ranges:
    return cell.within_noise ? "~" : "";
  default:
    return "";
  }
}

std::string spread_text(const Cell& cell) {
  if (cell.cv < 0)
    return "-";
  const std::size_t n = cell.cv_of_rounds ? cell.rounds.size() : cell.times.size();
  return fmt("%.2g%%", cell.cv * 100) + " (" + std::to_string(n) +
         (cell.cv_of_rounds ? " rounds)" : " reps)");
}

std::string across_runs_csv(const Cell& cell, bool baseline) {
  if (!cell.present)
    return ",,,,,,";
  static const char* const kTests[] = {"", "rounds", "repetitions", "ranges"};
  return std::string(baseline ? "" : mark(cell)) + "," + (baseline ? "" : kTests[int(cell.test)]) +
         "," + std::to_string(cell.rounds.size()) + "," +
         (cell.cv >= 0 ? fmt("%.6g", cell.cv) : "") + "," + (cell.marks.busy ? "true" : "false") +
         "," + cell.ceiling_uncertain + "," + marks_csv(cell.marks);
}

std::string significance_legend(std::size_t baseline) {
  return "Ratio: rate / rate of run " + std::to_string(baseline + 1) +
         ". Runs with the same config hash, label, host, ranks x threads and device, timed the "
         "same way (chained samples, or one launch per sample in older files), are pooled into "
         "one (their rounds and "
         "repetitions together). Where both sides have " +
         std::to_string(kMinRounds) +
         " or more rounds (`miniapp run --rounds N`; a run without rounds counts as one), `*` "
         "marks a significant difference across runs and `~` none: Welch's t test on the "
         "logarithms of the rounds' median times at alpha = " +
         fmt("%g", kAlpha) +
         " (p shown). With fewer, the run-to-run spread is unknown and only the repetitions "
         "within the runs are tested (two-sided Mann-Whitney U, normal approximation with tie "
         "correction, as Google Benchmark's compare.py): `~` where they do not differ, `?` where "
         "they do, which says these runs differed, not that their configs do. Runs without "
         "repetition times (results.csv, older results.json) show no p; `~` then marks "
         "overlapping [min, max] time ranges. Spread: the coefficient of variation of the "
         "rounds' medians (of the repetitions with one round).";
}

} // namespace compare
} // namespace miniapp
