#include "run/rounds.hpp"

#include <algorithm>
#include <string>

namespace miniapp {

namespace {
Stats pooled(const Stats& a, const Stats& b) {
  std::vector<double> all = a.samples;
  all.insert(all.end(), b.samples.begin(), b.samples.end());
  return summarize(all);
}
} // namespace

void set_rates(CaseResult& r) {
  if (r.compute.median > 0) {
    r.gflops = r.work.flops / r.compute.median * 1e-9;
    r.gbs = r.work.bytes / r.compute.median * 1e-9;
  }
  if (r.total.median > 0)
    r.gflops_with_transfers = r.work.flops / r.total.median * 1e-9;
}

void start_rounds(CaseResult& r) {
  r.round_medians.clear();
  r.round_total_medians.clear();
  if (r.status != Status::ok)
    return;
  r.round_medians.push_back(r.compute.median);
  r.round_total_medians.push_back(r.total.median);
}

void add_round(CaseResult& row, const CaseResult& round) {
  row.host_load = std::max(row.host_load, round.host_load);
  row.host_others = std::max(row.host_others, round.host_others);
  if (round.status != Status::ok) {
    row.status = round.status;
    row.message = "round " + std::to_string(row.round_medians.size() + 1) + ": " + round.message;
    row.validation = round.validation;
    return;
  }
  row.compute = pooled(row.compute, round.compute);
  row.h2d = pooled(row.h2d, round.h2d);
  row.d2h = pooled(row.d2h, round.d2h);
  row.total = pooled(row.total, round.total);
  row.round_medians.push_back(round.compute.median);
  row.round_total_medians.push_back(round.total.median);
  set_rates(row);
  if (row.ceiling > 0)
    row.pct_of_ceiling = 100.0 * (row.ceiling_unit == "GB/s" ? row.gbs : row.gflops) / row.ceiling;
}

} // namespace miniapp
