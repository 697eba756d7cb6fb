#pragma once
// A plan's time estimate (plan/estimate.hpp) with the kernel times this host's earlier runs and
// the history database hold for the same cases, backend and rank count, with the ceilings the run
// will measure (none where the config reuses them): what `validate`, `jobscript` and `study plan`
// print.
#include "plan/estimate.hpp"

#include <functional>
#include <string>

namespace miniapp {

// The model's rates for `backend`, calibrated by this host's earlier runs where it has records
// (run/calibration_store.hpp).
Rates host_rates(const std::string& backend);
// The ceiling a case of the plan is judged by on this host: the memory level of its working set
// (one rank's share), or its GEMM shape; "" for none.
std::function<std::string(const Case&)> ceiling_key_of(const Plan& plan);
// The ceilings a run of the plan measures on this host: distinct memory levels of its cases'
// working sets, and distinct GEMM shapes.
int plan_ceilings(const Plan& plan);
// The id under which a run keeps the seconds all its ceilings took ("ceilings:L2x3,L3x2,memoryx1":
// each key and how many cases it judges, which set the re-checks), for the next estimate of a
// plan with the same ones; "" where the id would be longer than a kept id may be. Kept per key
// alone, a level measured at a run's first streaming case carried every level's measurement and
// that run's re-checks: paper_table1's ceilings were estimated at 3.0 s for 1.0-1.1 s.
std::string plan_ceilings_time_id(const Plan& plan);

// A case's kernel time is measured where an earlier run has its id: this host's runs of one rank
// (run/calibration_store.hpp: this_host_runs, for a run on this host), then the history database
// where both have it (db, "" = none; host: a glob over its runs' hosts, "" = any); else modelled.
// A database that cannot be read throws config::ConfigError (the user named it).
PlanEstimate estimate_time(const Plan& plan, const Rates& rates, const std::string& backend,
                           const std::string& db, const std::string& host, int rounds = 1,
                           bool this_host_runs = true);

// How long before its time limit a job is warned (SIGUSR1, docs/jobs.md "Resuming"): long enough
// for the longest case to finish (its estimate with the margin of required_limit_seconds), at
// least 60 s, but at most half the time limit, so that a short job runs before it is warned; 0
// (no signal) for a limit of 0, which Slurm reads as none.
int stop_signal_margin_s(const PlanEstimate& estimate, double limit_s);

} // namespace miniapp
