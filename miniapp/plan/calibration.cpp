#include "plan/calibration.hpp"

#include "kernels/families.hpp"

#include <algorithm>

namespace miniapp {

namespace {

// The median of the positive values; 0 when there is none.
double median(std::vector<double> v) {
  v.erase(std::remove_if(v.begin(), v.end(), [](double x) { return !(x > 0); }), v.end());
  if (v.empty())
    return 0;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

} // namespace

double case_host_seconds(const Plan& plan, const CaseTiming& t, int rounds) {
  return std::max(0.0, t.wall_s - t.ceiling_s - launches_seconds(plan, t.kernel_s, rounds));
}

RunRecord fit_run(const Plan& plan, const std::vector<CaseTiming>& cases, double outside_s,
                  int ceilings, int rounds) {
  RunRecord rec;
  rec.start_s = std::max(0.0, outside_s);
  rec.ceiling_s = 0;
  struct Part {
    double bytes, flops, host, kernel;
    double barriers_s; // of the kernel, the model's time for its team barriers
    bool reference;    // its host work is mostly the float64 reference product
  };
  std::vector<Part> parts;
  std::vector<double> tiny; // the host work of cases that are their fixed cost
  for (std::size_t i = 0; i < cases.size() && i < plan.cases.size(); ++i) {
    const Case& c = plan.cases[i];
    const CaseTiming& t = cases[i];
    Part p;
    p.bytes = double(case_bytes(c));
    p.flops =
        family(c.family).rate == Rate::gflops ? 2.0 * double(c.m) * double(c.n) * double(c.k) : 0.0;
    p.kernel = t.kernel_s;
    p.barriers_s = team_barrier_seconds(c, 1, default_rates(plan.backend).barrier_s);
    p.reference = p.flops > 0 && plan.settings.validate;
    p.host = case_host_seconds(plan, t, rounds);
    rec.ceiling_s += t.ceiling_s;
    if (p.bytes < kFixedBytes && p.flops < kRateFlops)
      tiny.push_back(p.host);
    parts.push_back(p);
  }
  rec.ceiling_s = ceilings > 0 ? rec.ceiling_s / ceilings : 0;
  rec.case_s = median(tiny);
  const double fixed = rec.case_s > 0 ? rec.case_s : default_rates(plan.backend).case_s;
  double bytes = 0, host = 0, kernel_bytes = 0, kernel_bytes_s = 0, flops = 0, flops_s = 0;
  for (const Part& p : parts) {
    // (under load a tiny launch lasts long too: its size decides, and its time must be measurable;
    // a launch that is mostly team barriers says nothing of the rate: the probe runs of
    // matmul tiled at tiles 2-8 calibrated 1.8 GFLOP/s, which the barrier term then counted twice)
    const double rated_s = p.kernel - p.barriers_s;
    if (p.kernel >= kRateKernelSeconds && rated_s >= p.kernel / 2 &&
        (p.flops > 0 ? p.flops >= kRateFlops : p.bytes >= kRateBytes)) {
      (p.flops > 0 ? flops : kernel_bytes) += p.flops > 0 ? p.flops : p.bytes;
      (p.flops > 0 ? flops_s : kernel_bytes_s) += rated_s;
    }
    if (!p.reference && p.bytes >= kRateBytes) {
      bytes += p.bytes;
      host += std::max(0.0, p.host - fixed - (plan.settings.validate ? p.kernel : 0.0));
    }
  }
  rec.setup_gbs = bytes > 0 && host > 0 ? bytes / host * 1e-9 : 0;
  // The reference product: a validated matmul's host work less its fixed part and its set-up.
  const double setup = rec.setup_gbs > 0 ? rec.setup_gbs : default_rates(plan.backend).setup_gbs;
  double ref_flops = 0, ref_s = 0;
  for (const Part& p : parts)
    if (p.reference && p.flops >= kRateFlops) {
      ref_flops += p.flops;
      ref_s += std::max(0.0, p.host - fixed - p.bytes / (setup * 1e9) - p.kernel);
    }
  rec.reference_gflops = ref_flops > 0 && ref_s > 0 ? ref_flops / ref_s * 1e-9 : 0;
  rec.gbs = kernel_bytes > 0 && kernel_bytes_s > 0 ? kernel_bytes / kernel_bytes_s * 1e-9 : 0;
  rec.gflops = flops > 0 && flops_s > 0 ? flops / flops_s * 1e-9 : 0;
  return rec;
}

Rates calibrated_rates(const Rates& model, const std::vector<RunRecord>& records) {
  if (records.empty())
    return model;
  std::vector<RunRecord> quiet;
  for (const RunRecord& r : records)
    if (!r.busy)
      quiet.push_back(r);
  const std::vector<RunRecord>& use = quiet.empty() ? records : quiet;
  Rates r = model;
  const auto take = [&](double& to, double RunRecord::*field) {
    std::vector<double> v;
    for (const RunRecord& x : use)
      v.push_back(x.*field);
    if (const double m = median(v); m > 0)
      to = m;
  };
  take(r.start_s, &RunRecord::start_s);
  take(r.case_s, &RunRecord::case_s);
  take(r.setup_gbs, &RunRecord::setup_gbs);
  take(r.reference_gflops, &RunRecord::reference_gflops);
  take(r.gbs, &RunRecord::gbs);
  take(r.gflops, &RunRecord::gflops);
  take(r.ceiling_s, &RunRecord::ceiling_s);
  r.source = "calibrated on this host from " + std::to_string(use.size()) + " earlier run(s)" +
             (quiet.empty() ? " (all on a busy host)" : "");
  for (const RunRecord& x : records)
    if (x.error > 0)
      r.errors.push_back(x.error);
  return r;
}

} // namespace miniapp
