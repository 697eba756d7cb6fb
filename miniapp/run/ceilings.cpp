#include "run/ceilings.hpp"

#include "kernels/families.hpp"
#include "core/backends.hpp"
#include "core/device_info.hpp"
#include "core/text.hpp"
#include "core/timing.hpp"
#include "run/level_bandwidth.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <chrono>
#include <vector>

namespace miniapp {

namespace {
// Device backends: deep_copy between device views (the driver's copy engine path). Host backends:
// a STREAM-like copy kernel on the backend's own threads.
template <class Exec>
double copy_bandwidth(const Exec& exec, std::size_t bytes_per_array, int reps) {
  using Mem = typename Exec::memory_space;
  const std::int64_t n = std::int64_t(bytes_per_array / sizeof(float));
  Kokkos::View<float*, Mem> a("miniapp::ceiling::a", n), b("miniapp::ceiling::b", n);
  Kokkos::deep_copy(a, 1.0f);
  constexpr bool host = Kokkos::SpaceAccessibility<Kokkos::HostSpace, Mem>::accessible;
  // The device lambda is defined here, not inside `copy`: nvcc refuses extended lambdas nested
  // in another lambda.
  const auto body = KOKKOS_LAMBDA(const std::int64_t i) {
    b(i) = a(i);
  };
  const auto copy = [&] {
    if (host)
      Kokkos::parallel_for("miniapp::ceiling::copy",
                           Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>(exec, 0, n),
                           body);
    else
      Kokkos::deep_copy(b, a);
  };
  const std::vector<double> t = time_launches([&] { exec.fence(); }, copy, 1, reps);
  return 2.0 * double(n) * sizeof(float) / summarize(t).median * 1e-9;
}
} // namespace

double measure_copy_bandwidth(const std::string& backend, std::size_t bytes_per_array, int reps) {
  return with_backend(backend,
                      [&](auto exec) { return copy_bandwidth(exec, bytes_per_array, reps); });
}

double measure_pinned_h2d_bandwidth(const std::string& backend, std::size_t bytes, int reps) {
  auto k = make_kernel_case(transfer_ceiling_case(std::int64_t(bytes / sizeof(float))), backend);
  if (!k->transfers_are_copies())
    return 0;
  const std::vector<double> t =
      time_launches([&] { k->fence(); }, [&] { k->upload(); }, 1, reps); // A and B: 2 arrays
  return 2.0 * double(bytes) / summarize(t).median * 1e-9;
}

StableEstimate measure_vendor_gemm(const Case& of, const std::string& backend) {
  Case v = of;
  v.variant = family(of.family).ceiling_variant;
  v.print = false;
  v.tile_auto = v.team_auto = false;
  auto k = make_kernel_case(v, backend);
  k->upload();
  const auto fence = [&] { k->fence(); };
  const auto launch = [&] { k->run(); };
  // Two untimed launches (library handle, heuristics), then estimates of about 0.1 s of timed
  // samples each until two agree; samples chain launches as the case's do (core/timing.hpp).
  const double one = summarize(time_launches(fence, launch, 2, 1)).median;
  const int reps = reps_for(one * launches_per_sample(one, kernel_sample_seconds), 0.1, 10, 2000);
  // Each estimate is the best sample of its batch (as a level's bandwidth): a median over a batch
  // that another process interrupted read 4 GFLOP/s where the vendor case itself ran at 180.
  return estimate_until_stable([&] {
    const std::vector<double> t =
        time_samples(
            fence, launch, 1, reps, Sampling{kernel_sample_seconds}, [] { return true; }, 0)
            .seconds; // warm already
    return k->work().flops / *std::min_element(t.begin(), t.end()) * 1e-9;
  });
}

CeilingMeasures measures_on(const std::string& backend) {
  CeilingMeasures m;
  m.levels = [backend] {
    if (backend == "cuda" || backend == "hip")
      return gpu_levels(device_info(backend).l2_bytes);
    return host_levels(host_caches(), device_info(backend).concurrency);
  };
  m.bandwidth_gbs = [backend](std::uint64_t working_set) {
    return measure_level_bandwidth(backend, working_set);
  };
  m.vendor_gflops = [backend](const Case& c) { return measure_vendor_gemm(c, backend); };
  return m;
}

MeasuredCeilings::MeasuredCeilings(std::string backend)
    : MeasuredCeilings(backend, measures_on(backend)) {}

MeasuredCeilings::MeasuredCeilings(std::string backend, CeilingMeasures measures)
    : backend_(std::move(backend)), measures_(std::move(measures)) {}

template <class F>
auto MeasuredCeilings::timed(F&& measure) {
  const auto start = std::chrono::steady_clock::now();
  const auto add = [&] {
    measuring_s_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  try {
    auto v = measure();
    add();
    return v;
  } catch (...) {
    add();
    throw;
  }
}

std::string MeasuredCeilings::level_key(std::size_t level) const {
  return levels_[level].name + " copy bandwidth [GB/s]";
}

double MeasuredCeilings::level_gbs(std::size_t level, double rate) {
  if (cache_ && level_measures_[level] == 0 && !level_reused_[level])
    if (const auto v = cache_->get(level_key(level))) {
      level_gbs_[level] = *v;
      level_reused_[level] = true;
    }
  // Measured the first time, and again (at most kRemeasures times, the largest kept) when a row
  // beats it by more than 5%: another process on the cores during the measurement leaves a ceiling
  // below what the level delivers (a reused figure too: it then counts as measured).
  while ((level_measures_[level] == 0 && !level_reused_[level]) ||
         (rate > 1.05 * level_gbs_[level] && level_measures_[level] <= kRemeasures)) {
    ++level_measures_[level];
    level_reused_[level] = false;
    const std::uint64_t ws = measuring_working_set(levels_, level);
    level_gbs_[level] =
        std::max(level_gbs_[level], timed([&] { return measures_.bandwidth_gbs(ws); }));
    if (cache_ && level_gbs_[level] > 0)
      cache_->put(level_key(level), level_gbs_[level]);
  }
  return level_gbs_[level];
}

void MeasuredCeilings::attach(CaseResult& r, const std::string& backend) {
  if (backend != backend_)
    return;
  const Family& f = family(r.c.family);
  if (f.ceiling == Ceiling::vendor_gemm) {
    if (r.c.precision == Precision::int32)
      return;
    const auto key = std::make_tuple(int(r.c.precision), r.c.m, r.c.n, r.c.k);
    const std::string cache_key = "vendor GEMM " + std::string(to_string(r.c.precision)) + " " +
                                  std::to_string(r.c.m) + "x" + std::to_string(r.c.n) + "x" +
                                  std::to_string(r.c.k) + " [GFLOP/s]";
    // Always measured by measure_vendor_gemm, also for a vendor case: the case's own time is
    // a sample of the thing the ceiling estimates, not the ceiling.
    if (!vendor_.count(key) && cache_)
      if (const auto v = cache_->get(cache_key)) {
        vendor_[key] = StableEstimate{*v, *v, *v, 0, true};
        vendor_reused_.insert(key);
      }
    const auto measure = [&] {
      const StableEstimate e = timed([&] { return measures_.vendor_gflops(r.c); });
      if (cache_ && e.stable && e.value > 0) // an uncertain estimate is not worth keeping
        cache_->put(cache_key, e.value);
      return e;
    };
    if (!vendor_.count(key)) {
      try {
        vendor_[key] = measure();
      } catch (const std::exception&) {
        vendor_[key] = StableEstimate{-1, -1, -1, 0, false}; // no vendor BLAS for this case
      }
    }
    StableEstimate& g = vendor_[key];
    // Beaten by more than 5%: estimated again, as a level's bandwidth is (level_gbs).
    for (int again = 0; g.value > 0 && r.gflops > 1.05 * g.value && again < kRemeasures; ++again) {
      vendor_reused_.erase(key);
      const StableEstimate e = measure();
      if (e.value > g.value)
        g = e;
    }
    if (g.value > 0) {
      r.ceiling_name = g.stable ? "vendor GEMM"
                                : "vendor GEMM (uncertain: " + fmt("%.1f", g.low) + " to " +
                                      fmt("%.1f", g.high) + ")";
      r.ceiling = g.value;
      r.ceiling_unit = "GFLOP/s";
      r.pct_of_ceiling = 100.0 * r.gflops / g.value;
      r.ceiling_source = vendor_reused_.count(key) ? "reused" : "measured";
    }
  } else {
    if (levels_.empty()) {
      levels_ = measures_.levels();
      if (levels_.empty())
        levels_ = {{"memory", 0}};
      level_gbs_.assign(levels_.size(), 0.0);
      level_measures_.assign(levels_.size(), 0);
      level_reused_.assign(levels_.size(), false);
    }
    const std::size_t level = level_for(levels_, r.work.bytes);
    const double gbs = level_gbs(level, r.gbs);
    if (!(gbs > 0))
      return; // nothing measurable: no ceiling rather than an infinite percentage
    r.ceiling_name = "copy bandwidth";
    r.ceiling_level = levels_[level].name;
    r.ceiling = gbs;
    r.ceiling_unit = "GB/s";
    r.pct_of_ceiling = 100.0 * r.gbs / gbs;
    r.ceiling_source = level_reused_[level] ? "reused" : "measured";
  }
}

void MeasuredCeilings::print(std::ostream& os) const {
  std::vector<std::string> measured, reused; // what, for the closing line
  for (std::size_t i = 0; i < level_gbs_.size(); ++i) {
    if (!(level_gbs_[i] > 0))
      continue;
    const MemoryLevel& l = levels_[i];
    (level_reused_[i] ? reused : measured).push_back(l.name + " copy bandwidth");
    if (level_reused_[i]) {
      os << "ceiling: " << l.name << " copy bandwidth " << fmt("%.1f", level_gbs_[i]) << " GB/s on "
         << backend_ << " (reused from " << cache_->path() << ")\n";
      continue;
    }
    os << "ceiling: " << l.name << " copy bandwidth " << fmt("%.1f", level_gbs_[i]) << " GB/s on "
       << backend_ << " (bytes read + written"
       << (l.bytes > 0 ? "; working sets up to " +
                             fmt("%.0f", kLevelHoldsFactor * double(l.bytes) / 1024) + " KiB"
                       : std::string())
       << (level_measures_[i] > 1
               ? ", the largest of " + std::to_string(level_measures_[i]) + " measurements"
               : std::string())
       << ")\n";
  }
  for (const auto& [key, g] : vendor_) {
    if (g.value <= 0)
      continue;
    const std::string what = "vendor GEMM " + std::string(to_string(Precision(std::get<0>(key)))) +
                             " " + std::to_string(std::get<1>(key)) + "x" +
                             std::to_string(std::get<2>(key)) + "x" +
                             std::to_string(std::get<3>(key));
    os << "ceiling: " << what << ": " << fmt("%.1f", g.value) << " GFLOP/s";
    (vendor_reused_.count(key) ? reused : measured).push_back(what);
    if (vendor_reused_.count(key))
      os << " (reused from " << cache_->path() << ")\n";
    else if (g.stable)
      os << " (" << g.tries << " estimates)\n";
    else
      os << " uncertain: " << g.tries << " estimates from " << fmt("%.1f", g.low) << " to "
         << fmt("%.1f", g.high) << " never agreed within 5%\n";
  }
  const auto list = [](const std::vector<std::string>& v) {
    std::string out;
    for (const auto& w : v)
      out += (out.empty() ? "" : ", ") + w;
    return out;
  };
  if (!measured.empty() || measuring_s_ > 0)
    os << "ceilings: " << fmt("%.2f", measuring_s_) << " s measuring "
       << (measured.empty() ? "(none gave a figure)" : list(measured))
       << (reused.empty() ? "" : "; reused " + list(reused)) << "\n";
  else if (!reused.empty())
    os << "ceilings: 0 s measuring, reused " << list(reused) << "\n";
}

} // namespace miniapp
