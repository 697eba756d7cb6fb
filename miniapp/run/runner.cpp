#include "run/runner.hpp"

#include "compat.hpp"
#include "run/autotune.hpp"
#include "run/device_info.hpp"
#include "run/timing.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <atomic>
#include <csignal>
#include <iostream>
#include <new>
#include <numeric>
#include <unistd.h>

namespace miniapp {

namespace {
std::atomic<int> g_signals{0};
std::atomic<void (*)()> g_stop_hook{nullptr};
extern "C" void on_signal(int sig) {
  if (sig == SIGPIPE) { // every later write to the pipe signals again: stop, never die of it
    if (g_signals.fetch_add(1) == 0)
      if (auto hook = g_stop_hook.load())
        hook();
    return;
  }
  if (g_signals.fetch_add(1) > 0) {
    signal(sig, SIG_DFL);
    raise(sig);
  }
  if (auto hook = g_stop_hook.load())
    hook();
}
} // namespace

void install_stop_handlers() {
  std::signal(SIGINT, on_signal);
  std::signal(SIGTERM, on_signal);
  std::signal(SIGPIPE, on_signal);
}
void set_stop_hook(void (*hook)()) {
  g_stop_hook.store(hook);
}
bool stop_requested() {
  return g_signals.load() > 0;
}
void request_stop() {
  g_signals.fetch_add(1);
}

const char* to_string(Status s) {
  switch (s) {
  case Status::ok:
    return "ok";
  case Status::invalid:
    return "invalid";
  case Status::unsupported:
    return "unsupported";
  case Status::error:
    return "error";
  default:
    return "interrupted";
  }
}

Stats summarize(std::vector<double> v) {
  Stats s;
  if (v.empty())
    return s;
  s.samples = v;
  std::sort(v.begin(), v.end());
  s.min = v.front();
  s.max = v.back();
  s.median = v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
  s.mean = std::accumulate(v.begin(), v.end(), 0.0) / double(v.size());
  return s;
}

CaseResult run_case(const Case& c, const config::Settings& s, const std::string& backend,
                    const RunOptions& opt) {
  CaseResult r;
  r.c = c;
  compat::ScopedRegion region("miniapp::case::" + c.id());
  try {
    if (c.tile_auto || c.team_auto)
      r.c = autotune(c, backend, device_info(backend).name);
    auto kernel = make_kernel_case(r.c, backend);
    r.work = kernel->work();
    r.transfers_are_copies = kernel->transfers_are_copies();
    // Three phases, each through run/timing.hpp: copies in, launches back to back, copies out.
    // Repetition i's total is the sum of the three phases' i-th samples. Copies warm up by count
    // only (the time rule is for the host launches that needed it, and would cost each case).
    const auto keep_going = [] { return !stop_requested(); };
    const auto fence = [&] { kernel->fence(); };
    const std::vector<double> h2d = time_launches(
        fence, [&] { kernel->upload(); }, s.warmup, s.repetitions, keep_going, 0);
    const std::vector<double> compute = time_launches(
        fence, [&] { kernel->run(); }, s.warmup, s.repetitions, keep_going);
    const std::vector<double> d2h = time_launches(
        fence, [&] { kernel->download(); }, s.warmup, s.repetitions, keep_going, 0);
    std::vector<double> total;
    for (std::size_t i = 0; i < d2h.size(); ++i)
      total.push_back(h2d[i] + compute[i] + d2h[i]);
    if (stop_requested()) {
      r.status = Status::interrupted;
      r.message = "stopped by a signal before the case completed";
      return r;
    }
    r.h2d = summarize(h2d);
    r.compute = summarize(compute);
    r.d2h = summarize(d2h);
    r.total = summarize(total);
    if (r.compute.median > 0) {
      r.gflops = r.work.flops / r.compute.median * 1e-9;
      r.gbs = r.work.bytes / r.compute.median * 1e-9;
    }
    if (r.total.median > 0)
      r.gflops_with_transfers = r.work.flops / r.total.median * 1e-9;
    if (s.validate || opt.print || r.c.print) {
      kernel->reset_inputs();
      kernel->upload();
      kernel->poison();
      kernel->run();
      kernel->fence();
      kernel->download();
    }
    if (s.validate) {
      r.validation = kernel->validate(s.rtol);
      if (!r.validation.passed) {
        r.status = Status::invalid;
        r.message = std::to_string(r.validation.bad_elements) +
                    " element(s) out of tolerance, first " + r.validation.first_bad;
      }
    }
    if (opt.print || r.c.print) {
      std::cout << "--- " << r.c.id() << "\n";
      kernel->print(std::cout);
    }
    if (opt.ceilings)
      opt.ceilings->attach(r, backend);
  } catch (const UnsupportedCase& e) {
    r.status = Status::unsupported;
    r.message = e.what();
  } catch (const std::bad_alloc&) {
    r.status = Status::error;
    r.message = "out of memory (resource: host memory) while setting up " + c.id();
  } catch (const std::exception& e) {
    r.status = Status::error;
    r.message = e.what();
  }
  return r;
}

std::vector<CaseResult> run_plan(const Plan& plan, const RunOptions& opt,
                                 const CaseCallback& done) {
  std::vector<CaseResult> results;
  for (const auto& c : plan.cases) {
    if (stop_requested())
      break;
    results.push_back(run_case(c, plan.settings, plan.backend, opt));
    done(results.back());
    if (results.back().status == Status::interrupted)
      break;
  }
  return results;
}

} // namespace miniapp
