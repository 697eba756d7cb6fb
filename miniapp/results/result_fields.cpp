#include "results/result_fields.hpp"

#include "kernels/families.hpp"

#include <cmath>

namespace miniapp {

namespace {
using json = nlohmann::json;
using Getter = std::function<json(const CaseResult&, const RowContext&)>;
using SpreadOf = std::function<CaseResult::Spread(const CaseResult&)>;

// One rank: its own times are the spread (no communication; transfers = upload + download).
CaseResult::Spread compute_spread(const CaseResult& r) {
  if (r.distributed)
    return r.compute_ranks;
  return {r.compute.median, r.compute.median, r.compute.median};
}
CaseResult::Spread transfer_spread(const CaseResult& r) {
  if (r.distributed)
    return r.transfer_ranks;
  const double t = r.h2d.median + r.d2h.median;
  return {t, t, t};
}

// prefix_min<suffix>, prefix_mean<suffix>, prefix_max<suffix>: a value's spread over the ranks.
void add_spread(std::vector<ResultField>& out, const std::string& prefix, const char* suffix,
                const SpreadOf& of) {
  out.push_back({prefix + "_min" + suffix, FieldType::number,
                 [of](const CaseResult& r, const RowContext&) { return json(of(r).min); }});
  out.push_back({prefix + "_mean" + suffix, FieldType::number,
                 [of](const CaseResult& r, const RowContext&) { return json(of(r).mean); }});
  out.push_back({prefix + "_max" + suffix, FieldType::number,
                 [of](const CaseResult& r, const RowContext&) { return json(of(r).max); }});
}

std::vector<ResultField> make_fields() {
  std::vector<ResultField> f;
  const auto add = [&f](const char* name, FieldType type, Getter get) {
    f.push_back({name, type, std::move(get)});
  };
  using T = FieldType;
  add("experiment", T::text, [](auto&, const RowContext& x) { return json(x.plan.settings.name); });
  add("case", T::integer, [](const CaseResult& r, auto&) { return json(r.c.index); });
  for (const CaseField& p : case_fields())
    if (p.column)
      f.push_back({p.name, p.type,
                   [&p](const CaseResult& r, const RowContext&) { return case_value(p, r.c); }});
  add("backend", T::text, [](auto&, const RowContext& x) { return json(x.plan.backend); });
  add("ranks", T::integer, [](auto&, const RowContext& x) { return json(x.ranks); });
  add("grid_p", T::integer, [](auto&, const RowContext& x) { return json(x.plan.grid_p); });
  add("grid_q", T::integer, [](auto&, const RowContext& x) { return json(x.plan.grid_q); });
  add("panel", T::integer, [](const CaseResult& r, auto&) { return json(r.panel); });
  add("transport", T::text, [](const CaseResult& r, auto&) { return json(r.transport); });
  add("status", T::text, [](const CaseResult& r, auto&) { return json(to_string(r.status)); });
  // true, false, or "not_checked" (validation off, or the case did not run).
  add("valid", T::text, [](const CaseResult& r, auto&) {
    if (r.status == Status::ok && r.validation.checked)
      return json(true);
    return r.status == Status::invalid ? json(false) : json("not_checked");
  });
  add("warmup", T::integer,
      [](auto&, const RowContext& x) { return json(x.plan.settings.warmup); });
  add("repetitions", T::integer,
      [](auto&, const RowContext& x) { return json(x.plan.settings.repetitions); });
  add("time_min_s", T::number, [](const CaseResult& r, auto&) { return json(r.compute.min); });
  add("time_median_s", T::number,
      [](const CaseResult& r, auto&) { return json(r.compute.median); });
  add("time_max_s", T::number, [](const CaseResult& r, auto&) { return json(r.compute.max); });
  add("time_mean_s", T::number, [](const CaseResult& r, auto&) { return json(r.compute.mean); });
  add("h2d_median_s", T::number, [](const CaseResult& r, auto&) { return json(r.h2d.median); });
  add("d2h_median_s", T::number, [](const CaseResult& r, auto&) { return json(r.d2h.median); });
  add("total_median_s", T::number, [](const CaseResult& r, auto&) { return json(r.total.median); });
  add_spread(f, "compute_rank", "_s", compute_spread);
  add_spread(f, "comm_rank", "_s", [](const CaseResult& r) { return r.comm_ranks; });
  add_spread(f, "transfer_rank", "_s", transfer_spread);
  add_spread(f, "exposed_rank", "_s", [](const CaseResult& r) { return r.exposed_ranks; });
  add_spread(f, "overlap_rank", "", [](const CaseResult& r) { return r.overlap_ranks; });
  add("imbalance", T::number, [](const CaseResult& r, auto&) { return json(r.imbalance); });
  add("transfers", T::text, [](const CaseResult& r, auto&) {
    return json(r.transfers_are_copies ? "copies" : "none (host memory)");
  });
  add("flops", T::number, [](const CaseResult& r, auto&) { return json(r.work.flops); });
  add("bytes", T::number, [](const CaseResult& r, auto&) { return json(r.work.bytes); });
  add("gflops", T::number, [](const CaseResult& r, auto&) { return json(r.gflops); });
  add("gbs", T::number, [](const CaseResult& r, auto&) { return json(r.gbs); });
  add("gflops_with_transfers", T::number,
      [](const CaseResult& r, auto&) { return json(r.gflops_with_transfers); });
  add("ceiling", T::text, [](const CaseResult& r, auto&) { return json(r.ceiling_name); });
  add("ceiling_value", T::number, [](const CaseResult& r, auto&) { return json(r.ceiling); });
  add("ceiling_unit", T::text, [](const CaseResult& r, auto&) { return json(r.ceiling_unit); });
  add("pct_of_ceiling", T::number,
      [](const CaseResult& r, auto&) { return json(r.pct_of_ceiling); });
  add("max_error", T::number,
      [](const CaseResult& r, auto&) { return json(r.validation.max_error); });
  add("tolerance", T::number,
      [](const CaseResult& r, auto&) { return json(r.validation.tolerance); });
  add("bad_elements", T::integer,
      [](const CaseResult& r, auto&) { return json(r.validation.bad_elements); });
  add("checksum", T::number,
      [](const CaseResult& r, auto&) { return json(r.validation.checksum); });
  add("checksum_ref", T::number,
      [](const CaseResult& r, auto&) { return json(r.validation.checksum_ref); });
  add("checksum_bound", T::number,
      [](const CaseResult& r, auto&) { return json(r.validation.checksum_bound); });
  add("tuning", T::text, [](const CaseResult& r, auto&) { return json(r.c.tuning); });
  add("message", T::text, [](const CaseResult& r, auto&) { return json(r.message); });
  // Schema 2 from here on.
  add("case_id", T::text, [](const CaseResult& r, auto&) { return json(r.c.id()); });
  // Every repetition in run order (results.json only): compare's significance test.
  add("compute_times_s", T::number_list,
      [](const CaseResult& r, auto&) { return json(r.compute.samples); });
  add("h2d_times_s", T::number_list,
      [](const CaseResult& r, auto&) { return json(r.h2d.samples); });
  add("d2h_times_s", T::number_list,
      [](const CaseResult& r, auto&) { return json(r.d2h.samples); });
  // issue 17 (`miniapp run --references`): null where the run was not checked, or (the first two)
  // where no reference applies to the row.
  const auto text_or_null = [](const std::string& s) { return s.empty() ? json() : json(s); };
  add("reference", T::number, [](const CaseResult& r, auto&) {
    return r.reference_unit.empty() ? json() : json(r.reference);
  });
  add("reference_unit", T::text,
      [text_or_null](const CaseResult& r, auto&) { return text_or_null(r.reference_unit); });
  add("reference_status", T::text,
      [text_or_null](const CaseResult& r, auto&) { return text_or_null(r.reference_status); });
  // issue 12: tiled_rb's tile shape that ran (the list's default where the config named none);
  // null for variants without shapes. Appended, so readers by position keep working.
  add("shape", T::text, [](const CaseResult& r, const RowContext& x) {
    if (!r.c.uses(Param::shape))
      return json();
    const std::string s = shape_that_runs(r.c, x.plan.backend);
    return s.empty() ? json() : json(s);
  });
  // issue 22 (`miniapp run --rounds N`, run/rounds.hpp): the rounds pooled in the row, each
  // round's median compute and total time (results.json only; compare's unit across runs), and
  // the highest 1-minute load average sampled around the case (null where unknown; the busy
  // rule's fallback where host_others is null).
  add("rounds", T::integer,
      [](const CaseResult& r, auto&) { return json(r.round_medians.size()); });
  add("host_load", T::number,
      [](const CaseResult& r, auto&) { return r.host_load < 0 ? json() : json(r.host_load); });
  add("round_medians_s", T::number_list,
      [](const CaseResult& r, auto&) { return json(r.round_medians); });
  add("round_total_medians_s", T::number_list,
      [](const CaseResult& r, auto&) { return json(r.round_total_medians); });
  // issue 22: the memory level whose bandwidth is the row's ceiling (run/memory_levels.hpp); null
  // for GEMM ceilings and rows without a ceiling.
  add("ceiling_level", T::text,
      [text_or_null](const CaseResult& r, auto&) { return text_or_null(r.ceiling_level); });
  // issue 26 (run/energy_window.hpp): joules per launch, mean watts and the family's rate per watt
  // from the device's (or host's) energy counter, null where it was not measured, energy_note
  // saying why; the counter read, with its measured step and update interval, and the window.
  const auto positive = [](double v) { return v >= 0 ? json(v) : json(); };
  add("energy_j", T::number,
      [positive](const CaseResult& r, auto&) { return positive(r.energy.joules); });
  add("power_w", T::number,
      [positive](const CaseResult& r, auto&) { return positive(r.energy.watts); });
  add("rate_per_watt", T::number,
      [positive](const CaseResult& r, auto&) { return positive(r.energy.per_watt); });
  add("rate_per_watt_unit", T::text,
      [text_or_null](const CaseResult& r, auto&) { return text_or_null(r.energy.per_watt_unit); });
  add("energy_window_s", T::number, [](const CaseResult& r, auto&) {
    return r.energy.window_s > 0 ? json(r.energy.window_s) : json();
  });
  add("energy_counter", T::text,
      [text_or_null](const CaseResult& r, auto&) { return text_or_null(r.energy.counter); });
  add("energy_note", T::text,
      [text_or_null](const CaseResult& r, auto&) { return text_or_null(r.energy.note); });
  // Whether the row's ceiling was measured in this run or reused from the ceiling cache
  // (`reuse_ceilings: true`); null without a ceiling.
  add("ceiling_source", T::text,
      [text_or_null](const CaseResult& r, auto&) { return text_or_null(r.ceiling_source); });
  // The threads per team that ran (team_size 0 is fitted to the backend at launch); null for
  // variants that launch no teams.
  add("team_size_ran", T::integer, [](const CaseResult& r, auto&) {
    return r.team_size_ran > 0 ? json(r.team_size_ran) : json();
  });
  // What held the device's clock down while the energy counter was read (core/energy.hpp:
  // "none", "power cap", "thermal", "hardware slowdown", joined by ", "); null where the counter
  // cannot tell (host backends, ROCm SMI) or energy was not measured. A limited clock makes the
  // rate depend on how long the launches run (docs/performance.md, "What limits each kernel").
  add("clock_limit", T::text,
      [text_or_null](const CaseResult& r, auto&) { return text_or_null(r.energy.clock_limit); });
  // Launches each timed sample chained back to back between two fences (core/timing.hpp): 1
  // where a launch lasts longer than a sample, and on several ranks; null where none was timed,
  // and in files written before samples were chained (each of their samples was one launch).
  add("launches_per_sample", T::integer, [](const CaseResult& r, auto&) {
    return r.launches_per_sample > 0 ? json(r.launches_per_sample) : json();
  });
  // issue 41: an uncertain ceiling's range (its estimates did not agree, or its level read slower
  // than a farther one also when measured again; run/ceilings.hpp); null where it is certain.
  // ceiling_value is then the largest figure taken.
  add("ceiling_low", T::number, [](const CaseResult& r, auto&) {
    return r.ceiling_uncertain() ? json(r.ceiling_low) : json();
  });
  add("ceiling_high", T::number, [](const CaseResult& r, auto&) {
    return r.ceiling_uncertain() ? json(r.ceiling_high) : json();
  });
  // issue 41: the ceiling re-checked after the case (one quick estimate; null where it was not,
  // as at the case whose ceiling was measured just after it), and whether the re-check moved it
  // by more than its spread (run/ceilings.hpp): the row is then marked disturbed. Null without a
  // ceiling, and in files written before.
  add("ceiling_recheck", T::number, [](const CaseResult& r, auto&) {
    return r.ceiling > 0 && r.ceiling_recheck > 0 ? json(r.ceiling_recheck) : json();
  });
  add("ceiling_disturbed", T::boolean, [](const CaseResult& r, auto&) {
    return r.ceiling > 0 ? json(r.ceiling_disturbed) : json();
  });
  // issue 44: what tiled_rb chose at launch (kernels/matmul_split_k.hpp, tiled_rb_gpu_choice):
  // the parts K was split into (1: none; always 1 on host backends) and whether A and B ran as
  // zero-padded copies of whole tiles; null for variants that choose neither, and on several ranks.
  add("split_k", T::integer, [](const CaseResult& r, auto&) {
    return r.launch.split_k > 0 ? json(r.launch.split_k) : json();
  });
  add("padded", T::boolean, [](const CaseResult& r, auto&) {
    return r.launch.split_k > 0 ? json(r.launch.padded) : json();
  });
  // issue 41: the CPUs other work took beside the case (core/host_load.hpp; a lower bound), the
  // busy rule's measure where it is known; null on several ranks.
  add("host_others", T::number,
      [](const CaseResult& r, auto&) { return r.host_others < 0 ? json() : json(r.host_others); });
  return f;
}
} // namespace

const std::vector<ResultField>& result_fields() {
  static const std::vector<ResultField> fields = make_fields();
  return fields;
}

bool in_csv(const ResultField& f) {
  return f.type != FieldType::number_list;
}

std::vector<std::string> csv_columns() {
  std::vector<std::string> names;
  for (const auto& f : result_fields())
    if (in_csv(f))
      names.push_back(f.name);
  return names;
}

json result_json(const CaseResult& r, const RowContext& ctx) {
  json row = json::object();
  for (const auto& f : result_fields())
    row[f.name] = f.get(r, ctx);
  return row;
}

std::string csv_text(const json& v) {
  // JSON has no NaN or infinity (nlohmann writes them as null): the CSV cell is empty as well.
  if (v.is_null() || (v.is_number_float() && !std::isfinite(v.get<double>())))
    return "";
  if (v.is_string())
    return v.get<std::string>();
  return v.dump(); // numbers: integers exact, doubles the shortest text that reads back exactly
}

std::vector<std::string> csv_row(const CaseResult& r, const Plan& plan, int ranks) {
  const RowContext ctx{plan, ranks};
  std::vector<std::string> cells;
  for (const auto& f : result_fields())
    if (in_csv(f))
      cells.push_back(csv_text(f.get(r, ctx)));
  return cells;
}

} // namespace miniapp
