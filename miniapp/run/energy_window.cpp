#include "run/energy_window.hpp"

#include "kernels/families.hpp"

#include <cstdio>

namespace miniapp {

double energy_target_s(const EnergySource& s) {
  return std::min(kEnergyMaxWindowS, kEnergyIntervals * s.update_interval_s);
}

EnergyUse energy_not_measured(const std::string& why) {
  EnergyUse e;
  e.note = why;
  return e;
}

EnergyUse energy_use(const EnergySource& s, const EnergyReadings& w, double rate,
                     const std::string& unit) {
  EnergyUse e;
  e.counter = s.description();
  e.window_s = w.window_s;
  e.launches = w.launches;
  e.clock_limit = w.limits_known ? clock_limit_names(w.limits) : "";
  char buf[200];
  if (!w.read) {
    e.note = w.fault.empty() ? "reading the energy counter failed" : w.fault;
    return e;
  }
  if (w.launches <= 0) {
    e.note = "no launch was timed";
    return e;
  }
  if (!(w.window_s >= kEnergyMinIntervals * s.update_interval_s)) {
    std::snprintf(buf, sizeof buf,
                  "too short to measure: the launches lasted %.3g ms, under %d update intervals "
                  "of the counter (%.3g ms each)",
                  w.window_s * 1e3, kEnergyMinIntervals, s.update_interval_s * 1e3);
    e.note = buf;
    return e;
  }
  const double joules = w.end_j - w.begin_j;
  if (!(joules > 0)) {
    e.note = "the energy counter did not advance over the window";
    return e;
  }
  if (joules / w.window_s > kMostWatts) {
    std::snprintf(buf, sizeof buf,
                  "the energy counter advanced %.3g J in %.3g s, %.3g W, more than any device or "
                  "host draws (%.0f W): not taken as the case's energy",
                  joules, w.window_s, joules / w.window_s, kMostWatts);
    e.note = buf;
    return e;
  }
  e.joules = joules / w.launches;
  e.watts = joules / w.window_s;
  if (rate > 0) {
    e.per_watt = rate / e.watts;
    e.per_watt_unit = unit + "/W";
  }
  return e;
}

EnergyUse case_energy(const CaseResult& r, const EnergyWindow& w, const std::string& backend) {
  if (!w.active())
    return energy_not_measured("no energy counter: " + energy_source(backend).why_none);
  const bool gflops = family(r.c.family).rate == Rate::gflops;
  return w.result(gflops ? r.gflops : r.gbs, gflops ? "GFLOP/s" : "GB/s");
}

} // namespace miniapp
