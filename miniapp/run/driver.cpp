#include "run/driver.hpp"

#include "core/backends.hpp"
#include "core/compat.hpp"
#include "kernels/executor.hpp"
#include "kernels/families.hpp"
#include "kernels/launch_limits.hpp"
#include "run/autotune.hpp"
#include "run/case_validation.hpp"
#include "run/rounds.hpp"
#include "core/host_load.hpp"
#include "run/exit_code.hpp"
#include "run/stop_after_case.hpp"
#include "plan/config_hash.hpp"
#include "core/timing.hpp"
#include "run/energy_window.hpp"
#ifdef MINIAPP_HAVE_MPI
#include "parallel/distributed_case.hpp"
#include "plan/grid.hpp"
#include "parallel/process_grid.hpp"
#endif

#include <algorithm>
#include <iostream>
#include <memory>
#include <new>
#include <tuple>
#include <utility>

namespace miniapp {
namespace {

class Driver {
public:
  Driver(const Plan& plan, const Communicator& comm, ResultSink& sink, CeilingProvider& ceilings,
         const DriverOptions& opt)
      : plan_(plan), s_(plan.settings), comm_(comm), sink_(sink), ceilings_(ceilings),
        fault_(opt.fault ? *opt.fault : no_fault_), many_(comm.size() > 1), root_(comm.rank() == 0),
        print_all_(!many_ && opt.print), rounds_(std::max(1, opt.rounds)) {
#ifdef MINIAPP_HAVE_MPI
    if (many_) {
      grid_ =
          std::make_unique<parallel::ProcessGrid>(parallel::GridShape{plan.grid_p, plan.grid_q});
      panel_ = parallel::panel_width(s_.panel);
      transport_ = parallel::summa_transport(s_.transport, plan.backend, grid_->one_node());
      setup_.summa_panel = panel_;
      if (transport_.unavailable.empty())
        setup_.summa_transport = parallel::to_string(transport_.transport);
      setup_.transport_unavailable = transport_.unavailable;
      setup_.mpi_device_memory = parallel::mpi_accepts_device_memory(plan.backend);
    }
#endif
  }

  RunOutcome run() {
    RunOutcome out;
    if ((out.failed_code = output_phase([&] { sink_.open(setup_); })))
      return out;
    for (const auto& c : plan_.cases) {
      // SIGUSR1 stops before the next case: the first always runs, and after the last nothing
      // is left to stop (the run is complete).
      if (stop_agreed() || (!out.results.empty() && stop_after_case_agreed())) {
        out.interrupted = true;
        break;
      }
      out.results.push_back(sampled_case(c));
      CaseResult& r = out.results.back();
      start_rounds(r);
      locals_.push_back(attached_);
      attached_ = CaseResult{};
      if ((out.failed_code = output_phase([&] { sink_.add(r); })) ||
          (out.failed_code = revise_earlier_rows(out.results)))
        return out;
      if (r.status == Status::interrupted) {
        out.interrupted = true;
        break;
      }
    }
    // --rounds: the list again, each case as its first round resolved it ('auto' tiles chosen);
    // a case that did not end ok is not run again.
    later_round_ = true;
    for (int round = 1; round < rounds_ && !out.interrupted; ++round)
      for (std::size_t i = 0; i < out.results.size(); ++i) {
        if (out.results[i].status != Status::ok)
          continue;
        if (stop_agreed() || stop_after_case_agreed()) {
          out.interrupted = true;
          break;
        }
        const CaseResult next = sampled_case(out.results[i].c);
        if (next.status == Status::interrupted) {
          out.interrupted = true;
          break;
        }
        add_round(out.results[i], next);
        if ((out.failed_code = output_phase([&] { sink_.update(i, out.results[i]); })) ||
            (out.failed_code = revise_earlier_rows(out.results)))
          return out;
      }
    // Every rank asks (a collective), so all agree even when the signal came after the last case.
    out.interrupted = stop_agreed() || out.interrupted;
    out.failed_code = output_phase([&] { sink_.finish(out.interrupted); });
    return out;
  }

private:
  // A stop signal on any rank, agreed: every rank stops at the same launch.
  bool stop_agreed() const {
    return comm_.reduce(stop_requested() ? 1.0 : 0.0, ReduceOp::max) > 0;
  }

  // SIGUSR1 on any rank (run/stop_after_case.hpp), agreed after a case: all stop there.
  bool stop_after_case_agreed() const {
    return comm_.reduce(stop_after_case_requested() ? 1.0 : 0.0, ReduceOp::max) > 0;
  }

  // Rank 0 alone writes; a failure on any rank (MINIAPP_FAULT=<rank>:output) stops them all.
  template <class F>
  int output_phase(const F& f) {
    int code = kOk;
    std::string msg;
    try {
      fault_.trigger("output");
      if (root_)
        f();
    } catch (const std::exception& e) {
      code = kRuntimeError;
      msg = "miniapp: rank " + std::to_string(comm_.rank()) + ": " + (many_ ? "output: " : "") +
            failure_text(e);
    }
    code = agree_phase(comm_, "output", code, msg).code;
    if (code && root_) // whichever rank failed: results.json gets a final status
      sink_.failed();
    return code;
  }

  std::unique_ptr<Executor> make_executor(const Case& c) const {
    if (!many_)
      return kernel_executor(c, plan_.backend);
#ifdef MINIAPP_HAVE_MPI
    return parallel::make_distributed_case(c, plan_.backend, *grid_, panel_, transport_, fault_);
#else
    throw std::logic_error("several ranks in a build without MPI");
#endif
  }

  // Runs f, launches of a case. On one rank a failure marks the case; on several every rank is
  // inside collectives here, so a failure cannot wait for the others: it ends the whole job
  // with the failing rank named.
  template <class F>
  bool launches(CaseResult& r, const F& f) {
    try {
      f();
      return true;
    } catch (const std::exception& e) {
      if (many_) {
        // Rank 0 records "failed" first; when another rank fails, the abort's SIGTERM makes rank
        // 0's stop hook write "interrupted" (ResultsWriter).
        if (root_)
          sink_.failed();
        comm_.abort_all(kRuntimeError, r.c.id() + ": kernel: " + e.what());
      }
      r.status = Status::error;
      r.message = dynamic_cast<const std::bad_alloc*>(&e)
                      ? "out of memory (resource: host memory) while setting up " + r.c.id()
                      : e.what();
      return false;
    }
  }

  CaseResult sampled_case(const Case& c) { // with the host's load, and the other work beside it
    const double before = load_average_1min();
    const CpuTimes cpu = cpu_times_now();
    CaseResult r = run_case(c);
    r.host_load = std::max(before, load_average_1min());
    r.host_others = many_ ? -1 : others_cpus(cpu, cpu_times_now());
    return r;
  }

  CaseResult run_case(const Case& c) {
    CaseResult r;
    r.c = c;
    r.distributed = many_;
    r.panel = many_ && family(c.family).distribution == Distribution::summa ? panel_ : 0;
    if (r.panel) // empty where no transport can run it: the case is skipped, saying why
      r.transport = setup_.summa_transport;
    compat::ScopedRegion region("miniapp::case::" + c.id());
    std::unique_ptr<Executor> k = allocate(r);
    if (!k)
      return r;
    std::vector<double> work = {k->local_work().flops, k->local_work().bytes};
    comm_.reduce(work, ReduceOp::sum);
    r.work = {work[0], work[1]};
    r.transfers_are_copies = k->transfers_are_copies();
    // The checked run and its validation come before the timed launches, as in miniapp-bench
    // (bench/kernel_bench.cpp, set_up()): both programs then time a case in the same state (the
    // output paged in by poison()'s fill, the inputs reset and uploaded). The run timed first and
    // checked after, and on the GPU machine's 16 host cores read axpby flat 35% below the benchmark
    // (docs/performance.md, run 7).
    const bool print = !later_round_ && (print_all_ || (!many_ && r.c.print)); // once a case
    if (s_.validate || print)
      if (!launches(r, [&] { checked_run(*k); }))
        return r;
    if (s_.validate && !validate_on_ranks(r, *k, comm_, fault_, s_.rtol))
      return r;
    if (print) {
      std::cout << "--- " << r.c.id() << "\n";
      k->print(std::cout);
    }
    if ((s_.validate || print) && !launches(r, [&] { k->reset_inputs(); })) // in place: A again
      return r;
    kernels::team_size_that_ran() = 0; // the autotuner's and the checked run's launches are done
    if (!time(r, *k))
      return r;
    r.team_size_ran = kernels::team_size_that_ran();
    r.launch = k->launch_choice();
    attach_ceiling(r, *k);
    return r;
  }

  // Allocation: blocks, panels, inputs (after the autotuner, on one rank, chose 'auto' values).
  std::unique_ptr<Executor> allocate(CaseResult& r) {
    std::unique_ptr<Executor> k;
    const Outcome o = agree_on_case_phase(comm_, "allocation", "setting up " + r.c.id(), [&] {
      fault_.trigger("allocation");
      if (!many_)
        r.c = autotune(r.c, plan_.backend);
      k = make_executor(r.c);
    });
    if (!o.code)
      return k;
    r.status = o.code == kUnsupportedCase ? Status::unsupported : Status::error;
    r.message = o.message;
    return nullptr;
  }

  // Per repetition, the slowest rank's time.
  Stats slowest(std::vector<double> per_rep) const {
    comm_.reduce(per_rep, ReduceOp::max);
    return summarize(per_rep);
  }
  CaseResult::Spread spread(const std::vector<double>& per_rep) const {
    const double v = summarize(per_rep).median;
    return {comm_.reduce(v, ReduceOp::min), comm_.reduce(v, ReduceOp::sum) / comm_.size(),
            comm_.reduce(v, ReduceOp::max)};
  }

  // Kernels: three phases through core/timing.hpp, each with the executor's instance fences:
  // copies in, launches back to back, copies out. Repetition i's total is the sum of the three
  // phases' i-th samples. Returns false when the case ended (interrupted or failed).
  bool time(CaseResult& r, Executor& k) {
    // Warm-up: copies by count only (the time rule is for the host launches that needed it, and
    // would cost each case). The launches: on one rank the time rule of core/timing.hpp; on
    // several ranks the count rule (s.warmup, at least 1), because run() is collective and every
    // rank must make the same number of calls: a time rule would let a faster rank stop warming
    // up earlier and wait in a collective no other rank enters (a hang), and agreeing on it
    // would cost an allreduce per warm-up launch for a rule meant for one process's cold start.
    const double launch_warmup_s = many_ ? 0.0 : warmup_seconds;
    bool halted = false;
    // Asked before every launch on every rank, so all ranks stop at the same launch; it also
    // lines the ranks up, so each timed launch starts together.
    const auto keep_going = [&] {
      halted = stop_agreed();
      return !halted;
    };
    const auto fence = [&] { k.fence(); };
    std::vector<double> h2d, op, d2h;
    std::vector<RepTimes> parts; // every launch's breakdown, warm-up ones first
    // One rank's counter (on several ranks the window's extra launches would be collective).
    EnergyWindow energy(many_ || !s_.energy ? nullptr : &energy_source(plan_.backend));
    const bool ran = launches(r, [&] {
      fault_.trigger("kernel");
      h2d = time_launches(
          fence, [&] { k.upload(); }, s_.warmup, s_.repetitions, keep_going, 0);
      // Chained samples lasting at least kernel_span_seconds (core/timing.hpp), on one
      // rank: on several every launch is collective and asks keep_going() (a time rule would
      // need the ranks to agree on it), and a breakdown is per launch.
      Sampling sampling;
      if (!many_ && !k.breaks_down())
        sampling = {kernel_sample_seconds,
                    kernel_span_seconds(is_gpu_backend(plan_.backend), s_.energy)};
      const Samples timed = time_samples(
          fence, [&] { parts.push_back(k.run()); }, s_.warmup, s_.repetitions, sampling, keep_going,
          launch_warmup_s, [&] { energy.begin(); });
      op = timed.seconds;
      r.launches_per_sample = timed.launches_per_sample;
      energy.finish(
          int(op.size()) * timed.launches_per_sample, timed.launches_per_sample, [&] { k.run(); },
          fence, keep_going);
      d2h = time_launches(
          fence, [&] { k.download(); }, s_.warmup, s_.repetitions, keep_going, 0);
    });
    if (!ran)
      return false;
    if (halted || stop_agreed()) {
      r.status = Status::interrupted;
      r.message = "stopped by a signal before the case completed";
      return false;
    }
    if (h2d.empty() || d2h.empty())
      return false; // (a stop ends the case above; the copies always time one sample at least)
    std::vector<double> total, compute, comm, transfer, exposed, overlap;
    for (std::size_t i = 0; i < op.size(); ++i) {
      const RepTimes t = parts[parts.size() - op.size() + i];
      // On a GPU the kernel's samples outnumber the copies' (their span): the copies' samples
      // are taken in turn.
      const double in = h2d[i % h2d.size()], out = d2h[i % d2h.size()];
      total.push_back(in + op[i] + out);
      compute.push_back(k.breaks_down() ? t.compute : op[i]);
      comm.push_back(t.comm);
      transfer.push_back(t.transfer + in + out);
      // What the local product did not cover is communication or staging left in the open;
      // the rest of their time ran behind the product.
      exposed.push_back(std::max(0.0, op[i] - compute.back()));
      const double busy = t.comm + t.transfer;
      overlap.push_back(busy > 0 ? std::clamp(1.0 - exposed.back() / busy, 0.0, 1.0) : 0.0);
    }
    r.compute = slowest(op);
    r.h2d = slowest(h2d);
    r.d2h = slowest(d2h);
    r.total = slowest(total);
    if (many_) {
      r.compute_ranks = spread(compute);
      r.comm_ranks = spread(comm);
      r.transfer_ranks = spread(transfer);
      r.exposed_ranks = spread(exposed);
      r.overlap_ranks = spread(overlap);
      r.imbalance = r.compute_ranks.mean > 0 ? r.compute_ranks.max / r.compute_ranks.mean : 1;
    }
    set_rates(r);
    r.energy = many_        ? energy_not_measured("not measured on several ranks")
               : !s_.energy ? energy_not_measured("not measured (energy: false)")
                            : case_energy(r, energy, plan_.backend);
    return true;
  }

  // Rows given a ceiling that has since been found uncertain (a later row beat it also when it
  // was measured again: run/ceilings.hpp) are marked too, where they are written: each rank
  // revises its own parts, and a row's range is their sum, as attach_ceiling makes it.
  int revise_earlier_rows(std::vector<CaseResult>& results) {
    const std::size_t n = std::min(results.size(), locals_.size());
    std::vector<double> revised(n, 0), low(n, 0), high(n, 0);
    for (std::size_t i = 0; i < n; ++i) {
      revised[i] = ceilings_.revise(locals_[i], plan_.backend) ? 1 : 0;
      std::tie(low[i], high[i]) = range_part(locals_[i]);
    }
    comm_.reduce(revised, ReduceOp::max);
    // (the common case, no row revised on any rank: one collective, not three)
    if (std::none_of(revised.begin(), revised.end(), [](double v) { return v > 0; }))
      return kOk;
    comm_.reduce(low, ReduceOp::sum);
    comm_.reduce(high, ReduceOp::sum);
    for (std::size_t i = 0; i < n; ++i) {
      if (!(revised[i] > 0) || !(results[i].ceiling > 0))
        continue;
      results[i].ceiling_low = low[i];
      results[i].ceiling_high = high[i];
      if (const int code = output_phase([&] { sink_.revise(i, results[i]); }))
        return code;
    }
    return kOk;
  }

  // A rank's part of a row's ceiling range: its uncertain range, else its ceiling on both ends.
  static std::pair<double, double> range_part(const CaseResult& local) {
    return local.ceiling_uncertain() ? std::make_pair(local.ceiling_low, local.ceiling_high)
                                     : std::make_pair(local.ceiling, local.ceiling);
  }

  // Ceiling: the sum over ranks of each rank's own ceiling for its part (no communication).
  void attach_ceiling(CaseResult& r, const Executor& k) {
    CaseResult local;
    local.c = k.local_case();
    local.gflops = r.gflops;
    local.gbs = r.gbs;
    local.work = k.local_work(); // the working set that picks the memory level
    ceilings_.attach(local, plan_.backend);
    if (!later_round_)
      attached_ = local;
    const double sum = comm_.reduce(local.ceiling, ReduceOp::sum),
                 least = comm_.reduce(local.ceiling, ReduceOp::min);
    if (least > 0) {
      r.ceiling_name =
          local.ceiling_name + (many_ ? " x " + std::to_string(comm_.size()) + " ranks" : "");
      r.ceiling = sum;
      r.ceiling_unit = local.ceiling_unit;
      r.ceiling_level = local.ceiling_level;
      r.ceiling_source = local.ceiling_source;
      r.pct_of_ceiling = 100.0 * (r.ceiling_unit == "GB/s" ? r.gbs : r.gflops) / sum;
    }
    // Uncertain on any rank: the range of the sum, each certain rank adding its own figure.
    const bool uncertain = comm_.reduce(local.ceiling_uncertain() ? 1.0 : 0.0, ReduceOp::max) > 0;
    const auto [low_part, high_part] = range_part(local);
    const double low = comm_.reduce(low_part, ReduceOp::sum),
                 high = comm_.reduce(high_part, ReduceOp::sum);
    if (least > 0 && uncertain) {
      r.ceiling_low = low;
      r.ceiling_high = high;
    }
    // Disturbed on any rank: the row is. The re-check, like the ceiling, is the ranks' sum (all
    // re-check, or none: the same cases measured before).
    const double recheck = comm_.reduce(local.ceiling_recheck, ReduceOp::sum);
    const bool disturbed = comm_.reduce(local.ceiling_disturbed ? 1.0 : 0.0, ReduceOp::max) > 0;
    if (least > 0) {
      r.ceiling_recheck = recheck;
      r.ceiling_disturbed = disturbed;
    }
  }

  const Plan& plan_;
  const config::Settings& s_;
  const Communicator& comm_;
  ResultSink& sink_;
  CeilingProvider& ceilings_;
  // Each first-round row's own part as its ceiling was attached (empty where none was), in the
  // order of the results: what revise_earlier_rows asks about.
  std::vector<CaseResult> locals_;
  CaseResult attached_;
  const parallel::FaultInjection no_fault_;
  const parallel::FaultInjection& fault_;
  const bool many_, root_, print_all_;
  const int rounds_;
  bool later_round_ = false; // --rounds: past the first round (matrices are printed once)
  int panel_ = 0;
  RunSetup setup_; // what the sink is told the run uses
#ifdef MINIAPP_HAVE_MPI
  parallel::TransportChoice transport_;
  std::unique_ptr<parallel::ProcessGrid> grid_;
#endif
};

} // namespace

RunOutcome run_experiment(const Plan& plan, const Communicator& comm, ResultSink& sink,
                          CeilingProvider& ceilings, const DriverOptions& opt) {
  try {
    return Driver(plan, comm, sink, ceilings, opt).run();
  } catch (const std::exception& e) {
    const std::string what = failure_text(e);
    if (comm.size() > 1)
      comm.abort_all(kRuntimeError, "unexpected error: " + what);
    sink.failed();
    std::cerr << "miniapp: rank 0: " << what << std::endl;
    RunOutcome out;
    out.failed_code = kRuntimeError;
    return out;
  }
}

} // namespace miniapp
