#include "parallel/distributed_runner.hpp"

#include "app/load_plan.hpp"
#include "compat.hpp"
#include "config/config.hpp"
#include "parallel/distributed_case.hpp"
#include "parallel/fault.hpp"
#include "parallel/process_grid.hpp"
#include "report/console.hpp"
#include "report/metadata.hpp"
#include "report/results_writer.hpp"
#include "app/run_extras.hpp" // issue 17: --references, --db (rank 0)
#include "run/ceilings.hpp"
#include "run/runner.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <iomanip>
#include <iostream>
#include <memory>
#include <new>
#include <unistd.h>

namespace miniapp::parallel {
namespace {

using Op = MpiEnv::Op;
constexpr int kUnsupported = 1; // a status below the error codes: every rank skips the case

std::string on_rank(const MpiEnv& mpi) {
  return "rank " + std::to_string(mpi.rank()) + ": ";
}

// Ends a phase: all ranks learn the worst status. The lowest failing rank prints its message;
// rank 0 adds who failed unless every rank failed alike (a config error is printed once).
MpiEnv::Outcome end_phase(const MpiEnv& mpi, const char* phase, int code, const std::string& msg) {
  const MpiEnv::Outcome o = mpi.agree(code, msg);
  if (o.code) {
    if (mpi.rank() == o.rank)
      std::cerr << msg << std::endl;
    if (mpi.rank() == 0 && !o.everyone)
      std::cerr << "miniapp: rank " << o.rank << " failed in phase " << phase << "; all "
                << mpi.size() << " ranks stop with exit code " << o.code << std::endl;
  }
  return o;
}

template <class F>
double timed(F&& f) {
  Kokkos::fence();
  Kokkos::Timer t;
  f();
  Kokkos::fence();
  return t.seconds();
}

CaseResult::Spread spread(const MpiEnv& mpi, double v) {
  return {mpi.reduce(v, Op::min), mpi.reduce(v, Op::sum) / mpi.size(), mpi.reduce(v, Op::max)};
}

// Per repetition, the slowest rank's time.
Stats slowest(const MpiEnv& mpi, std::vector<double> per_rep) {
  mpi.reduce(per_rep, Op::max);
  return summarize(per_rep);
}

struct Context {
  const Plan& plan;
  const MpiEnv& mpi;
  const ProcessGrid& grid;
  const FaultInjection& fault;
  int panel;
  bool device_aware;
  MeasuredCeilings& ceilings;
  std::function<void()> before_abort; // empty, or rank 0's final "failed" results
};

CaseResult run_one(const Case& c, const Context& x) {
  const MpiEnv& mpi = x.mpi;
  const config::Settings& s = x.plan.settings;
  CaseResult r;
  r.c = c;
  r.distributed = true;
  r.panel = c.family == "matmul" ? x.panel : 0;
  compat::ScopedRegion region("miniapp::case::" + c.id());

  // Allocation: blocks, panels, inputs.
  std::unique_ptr<DistributedCase> k;
  int code = kOk;
  std::string msg;
  try {
    x.fault.trigger("allocation");
    k = make_distributed_case(c, x.plan.backend, x.grid, x.panel, x.device_aware, x.fault);
  } catch (const UnsupportedCase& e) {
    code = kUnsupported;
    msg = e.what();
  } catch (const std::bad_alloc&) {
    code = kRuntimeError;
    msg = on_rank(mpi) + "out of memory (resource: host memory) while setting up " + c.id();
  } catch (const std::exception& e) {
    code = kRuntimeError;
    msg = on_rank(mpi) + "allocation: " + e.what();
  }
  const MpiEnv::Outcome alloc = mpi.agree(code, msg);
  if (alloc.code) {
    r.status = alloc.code == kUnsupported ? Status::unsupported : Status::error;
    r.message = alloc.message;
    return r;
  }
  std::vector<double> work = {k->local_work().flops, k->local_work().bytes};
  mpi.reduce(work, Op::sum);
  r.work = {work[0], work[1]};
  r.transfers_are_copies = k->transfers_are_copies();

  // Kernels: every rank is inside collectives here, so a failure cannot wait for the others;
  // it ends the whole job (MPI_Abort) with the failing rank named.
  std::vector<double> h2d, op, d2h, total, compute, comm, transfer, exposed, overlap;
  bool interrupted = false;
  try {
    x.fault.trigger("kernel");
    for (int w = 0; w < s.warmup; ++w) {
      k->upload();
      k->run();
    }
    for (int rep = 0; rep < s.repetitions; ++rep) {
      // Also lines the ranks up, so each repetition starts together.
      if (mpi.reduce(stop_requested() ? 1 : 0, Op::max) > 0) {
        interrupted = true;
        break;
      }
      RepTimes t;
      h2d.push_back(timed([&] { k->upload(); }));
      op.push_back(timed([&] { t = k->run(); }));
      d2h.push_back(timed([&] { k->download(); }));
      total.push_back(h2d.back() + op.back() + d2h.back());
      compute.push_back(t.compute);
      comm.push_back(t.comm);
      transfer.push_back(t.transfer + h2d.back() + d2h.back());
      // What the local product did not cover is communication or staging left in the open;
      // the rest of their time ran behind the product.
      exposed.push_back(std::max(0.0, op.back() - t.compute));
      const double busy = t.comm + t.transfer;
      overlap.push_back(busy > 0 ? std::clamp(1.0 - exposed.back() / busy, 0.0, 1.0) : 0.0);
    }
    if (!interrupted && (s.validate || c.print)) {
      k->reset_inputs();
      k->upload();
      k->poison();
      k->run();
      k->download();
    }
  } catch (const std::exception& e) {
    // Rank 0 records "failed" first; when another rank fails, MPI_Abort's SIGTERM makes rank 0's
    // stop hook write "interrupted" (ResultsWriter).
    if (x.before_abort)
      x.before_abort();
    mpi.abort_all(kRuntimeError, c.id() + ": kernel: " + e.what());
  }
  if (interrupted) {
    r.status = Status::interrupted;
    r.message = "stopped by a signal before the case completed";
    return r;
  }
  r.compute = slowest(mpi, op);
  r.h2d = slowest(mpi, h2d);
  r.d2h = slowest(mpi, d2h);
  r.total = slowest(mpi, total);
  r.compute_ranks = spread(mpi, summarize(compute).median);
  r.comm_ranks = spread(mpi, summarize(comm).median);
  r.transfer_ranks = spread(mpi, summarize(transfer).median);
  r.exposed_ranks = spread(mpi, summarize(exposed).median);
  r.overlap_ranks = spread(mpi, summarize(overlap).median);
  r.imbalance = r.compute_ranks.mean > 0 ? r.compute_ranks.max / r.compute_ranks.mean : 1;
  if (r.compute.median > 0) {
    r.gflops = r.work.flops / r.compute.median * 1e-9;
    r.gbs = r.work.bytes / r.compute.median * 1e-9;
  }
  if (r.total.median > 0)
    r.gflops_with_transfers = r.work.flops / r.total.median * 1e-9;

  // Validation: each rank checks its block against the one-rank reference; counts and
  // checksums are summed, the first bad element comes from the lowest failing rank.
  if (s.validate) {
    Validation v;
    code = kOk;
    msg.clear();
    try {
      v = k->validate(s.rtol);
      if (x.fault.armed("validation")) { // as if an element came back wrong
        v.passed = false;
        v.bad_elements = std::max(1LL, v.bad_elements);
        v.first_bad =
            "injected fault in phase validation (MINIAPP_FAULT=" + std::to_string(mpi.rank()) +
            ":validation)";
      }
    } catch (const std::bad_alloc&) {
      code = kRuntimeError;
      msg = on_rank(mpi) + "out of memory (resource: host memory) while validating " + c.id();
    } catch (const std::exception& e) {
      code = kRuntimeError;
      msg = on_rank(mpi) + "validation: " + e.what();
    }
    const MpiEnv::Outcome o = mpi.agree(code, msg);
    if (o.code) {
      r.status = Status::error;
      r.message = o.message;
      return r;
    }
    std::vector<double> sums = {double(v.bad_elements), v.checksum, v.checksum_ref,
                                v.checksum_bound};
    mpi.reduce(sums, Op::sum);
    const MpiEnv::Outcome first = mpi.agree(v.bad_elements > 0 ? 1 : 0, on_rank(mpi) + v.first_bad);
    v.bad_elements = static_cast<long long>(sums[0]);
    v.checksum = sums[1];
    v.checksum_ref = sums[2];
    v.checksum_bound = sums[3];
    v.max_error = mpi.reduce(v.max_error, Op::max);
    v.passed = v.bad_elements == 0;
    v.first_bad = first.code ? first.message : "";
    r.validation = v;
    if (!v.passed) {
      r.status = Status::invalid;
      r.message =
          std::to_string(v.bad_elements) + " element(s) out of tolerance, first on " + v.first_bad;
    }
  }

  // Ceiling: the sum over ranks of each rank's own ceiling for its block (no communication).
  CaseResult local;
  local.c = k->local_case();
  // Not "vendor": attach() then measures the vendor GEMM on this block instead of taking the
  // row's own rate (which, for a vendor row, would be this very measurement).
  if (local.c.variant == "vendor")
    local.c.variant = "summa";
  x.ceilings.attach(local, x.plan.backend);
  const double sum = mpi.reduce(local.ceiling, Op::sum), least = mpi.reduce(local.ceiling, Op::min);
  if (least > 0) {
    r.ceiling_name = local.ceiling_name + " x " + std::to_string(mpi.size()) + " ranks";
    r.ceiling = sum;
    r.ceiling_unit = local.ceiling_unit;
    r.pct_of_ceiling = 100.0 * (r.ceiling_unit == "GB/s" ? r.gbs : r.gflops) / sum;
  }
  return r;
}

void print_rank_table(std::ostream& os, const std::vector<CaseResult>& rows, int ranks) {
  os << "\nper-rank medians over repetitions, min / mean / max over " << ranks << " ranks [s]\n";
  os << std::left << std::setw(13) << "kernel" << std::setw(12) << "variant" << std::setw(32)
     << "compute" << std::setw(32) << "communication" << std::setw(32) << "transfer"
     << std::setw(32) << "exposed" << std::setw(17) << "overlap"
     << "imbalance\n";
  const auto cell = [](const CaseResult::Spread& s) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.2e %.2e %.2e", s.min, s.mean, s.max);
    return std::string(buf);
  };
  const auto fraction = [](const CaseResult::Spread& s) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.2f %.2f %.2f", s.min, s.mean, s.max);
    return std::string(buf);
  };
  for (const auto& r : rows) {
    if (r.status != Status::ok && r.status != Status::invalid)
      continue;
    char imb[32];
    std::snprintf(imb, sizeof imb, "%.2f", r.imbalance);
    os << std::left << std::setw(13) << r.c.family << std::setw(12) << r.c.variant << std::setw(32)
       << cell(r.compute_ranks) << std::setw(32) << cell(r.comm_ranks) << std::setw(32)
       << cell(r.transfer_ranks) << std::setw(32) << cell(r.exposed_ranks) << std::setw(17)
       << fraction(r.overlap_ranks) << imb << "\n";
  }
}

int run(const RunArgs& args, const MpiEnv& mpi) {
  const bool root = mpi.rank() == 0;

  // Config: rank 0 reads the file, every rank parses the same text and checks the same plan.
  Plan plan;
  FaultInjection fault;
  int code = kOk;
  std::string msg;
  RunExtras extras; // issue 17
  try {
    plan = load_plan(args, mpi);
    fault = FaultInjection::from_environment(mpi.rank());
    fault.trigger("config");
    if (root)
      extras.load(args, plan); // issue 17
  } catch (const config::ConfigError& e) {
    code = kConfigError;
    msg = e.what();
  } catch (const std::exception& e) {
    code = kConfigError;
    msg = "miniapp: " + on_rank(mpi) + "config: " + e.what();
  }
  if (const auto o = end_phase(mpi, "config", code, msg); o.code)
    return o.code;

  const ProcessGrid grid(GridShape{plan.grid_p, plan.grid_q});
  const int panel = panel_width(plan.settings.panel);
  const bool device_aware = mpi_accepts_device_memory(plan.backend);
  install_stop_handlers();

  // Output: rank 0 alone creates the run directory and writes the files.
  ParallelInfo par;
  par.ranks = mpi.size();
  par.grid_p = plan.grid_p;
  par.grid_q = plan.grid_q;
  par.mpi_library = mpi.library();
  std::unique_ptr<ResultsWriter> writer;
  const auto output_phase = [&](const std::function<void()>& f) {
    int c = kOk;
    std::string m;
    try {
      fault.trigger("output");
      if (root)
        f();
    } catch (const std::exception& e) {
      c = kRuntimeError;
      m = "miniapp: " + on_rank(mpi) + "output: " + e.what();
    }
    const int code = end_phase(mpi, "output", c, m).code;
    if (code && root && writer) // whichever rank failed: results.json gets a final status
      writer->finish(RunStatus::failed);
    return code;
  };
  if (const int c = output_phase([&] {
        nlohmann::json md = collect_metadata(plan, par, launch_info(args));
        md["mpi_device_memory"] = device_aware; // false: transfers staged through host buffers
        md["summa_panel"] = panel;
        const std::string dir = create_run_directory(plan.settings.output_directory,
                                                     plan.settings.name, args.output_dir);
        writer = std::make_unique<ResultsWriter>(dir, plan, md);
        extras.attach(*writer); // issue 17
      }))
    return c;
  if (root && !args.quiet) {
    print_plan(std::cout, plan);
    std::cout << "parallelism: " << describe_parallelism(plan.ranks, plan.backend).summary()
              << "\nresults: " << writer->directory() << std::endl;
  }
  if (root && (args.print || plan.settings.print))
    std::cout << "note: result matrices are printed by single-rank runs only\n";

  MeasuredCeilings ceilings(plan.backend);
  const Context ctx{plan, mpi, grid, fault, panel, device_aware, ceilings, [&] {
                      if (root && writer)
                        writer->finish(RunStatus::failed);
                    }};
  Progress progress(std::cerr, plan.cases.size(), root && isatty(STDERR_FILENO) != 0);
  std::vector<CaseResult> results;
  bool interrupted = false;
  for (const auto& c : plan.cases) {
    if (mpi.reduce(stop_requested() ? 1 : 0, Op::max) > 0) {
      interrupted = true;
      break;
    }
    results.push_back(run_one(c, ctx));
    const CaseResult& r = results.back();
    if (const int oc = output_phase([&] {
          writer->add(r);
          progress.case_done(r);
        }))
      return oc;
    if (r.status == Status::interrupted) {
      interrupted = true;
      break;
    }
  }
  if (const int c = output_phase([&] {
        progress.finish();
        if (const std::string error =
                writer->finish(interrupted ? RunStatus::interrupted : RunStatus::complete);
            !error.empty())
          throw std::runtime_error(error);
      }))
    return c;

  code = kOk;
  for (const auto& r : results)
    if (r.status == Status::error)
      code = kRuntimeError;
  if (code == kOk)
    for (const auto& r : results)
      if (r.status == Status::invalid)
        code = kValidationFailed;
  if (interrupted && code == kOk)
    code = kRuntimeError;
  if (root) {
    print_results_table(std::cout, plan, results);
    print_rank_table(std::cout, results, mpi.size());
    std::cout << "results written to " << writer->directory() << "/\n";
    for (const auto& r : results)
      if (r.status == Status::error || r.status == Status::invalid)
        std::cerr << "miniapp: " << r.c.id() << ": " << r.message << "\n";
    if (interrupted)
      std::cerr << "miniapp: interrupted; "
                << std::count_if(
                       results.begin(), results.end(),
                       [](const CaseResult& r) { return r.status != Status::interrupted; })
                << " of " << plan.cases.size() << " case(s) kept in " << writer->directory()
                << "\n";
    if (code == kValidationFailed)
      std::cerr << "miniapp: validation FAILED for at least one case (rows marked invalid)\n";
    code = extras.finish(*writer, code, std::cout, std::cerr); // issue 17: 5 when below
  }
  return code;
}

} // namespace

int run_distributed(const RunArgs& args, const MpiEnv& mpi) {
  try {
    return run(args, mpi);
  } catch (const std::exception& e) {
    mpi.abort_all(kRuntimeError, std::string("unexpected error: ") + e.what());
  }
}

} // namespace miniapp::parallel
