#include "run/level_bandwidth.hpp"

#include "core/backends.hpp"
#include "core/compat.hpp"
#include "core/timing.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <functional>
#include <vector>

namespace miniapp {

namespace {

// Sanitized builds (the asan preset) leave the host probe's loop uninstrumented: it is a copy over
// [lo, hi) of arrays it allocated itself, where a check per access adds nothing but time, and that
// time is what the probe measures. Instrumented, the asan build read 1.5 GB/s for every level and
// spent 21.6 s of a 25.6 s run on ceilings (tests/history/history_small.yaml, 6.3 s of CPU time);
// uninstrumented it reads 40 GB/s in L1 and the same run takes 2.3 s of CPU time.
#if defined(__SANITIZE_ADDRESS__)
#define MINIAPP_PROBE_UNSANITIZED __attribute__((no_sanitize("address", "undefined")))
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define MINIAPP_PROBE_UNSANITIZED __attribute__((no_sanitize("address", "undefined")))
#endif
#endif
#ifndef MINIAPP_PROBE_UNSANITIZED
#define MINIAPP_PROBE_UNSANITIZED
#endif

// One pass of copy (Add = false) or add over [lo, hi); restrict lets the loop vectorise.
template <bool Add>
MINIAPP_PROBE_UNSANITIZED void host_pass(float* __restrict dst, const float* __restrict src,
                                         const float* __restrict z, float s, std::int64_t lo,
                                         std::int64_t hi) {
  for (std::int64_t i = lo; i < hi; ++i)
    dst[i] = Add ? src[i] + s * z[i] : src[i];
}

// Host backends: work item t is thread t's contiguous part (the part its first touch placed),
// passed over `passes` times inside the launch, x to y then y to x: every pass depends on the
// one before, so none is optimised away.
template <bool Add>
struct HostPasses {
  float* x;
  float* y;
  const float* z;
  float s;
  std::int64_t n;
  int parts, passes;
  void operator()(const int t) const {
    const std::int64_t lo = n * t / parts, hi = n * (t + 1) / parts;
    for (int p = 0; p < passes; ++p) {
      if (p % 2 == 0)
        host_pass<Add>(y, x, z, s, lo, hi);
      else
        host_pass<Add>(x, y, z, s, lo, hi);
    }
  }
};

// GPUs: V = 4 contiguous elements per work item, as axpby flat (kernels/axpby.hpp: one element
// per item reached a third of the copy bandwidth on an H200). Not deep_copy: on an H100 it ran at
// 2800 GB/s where axpby flat reached 2912 (issue 22).
template <class View, bool Add>
struct DevicePass {
  View dst, src, z;
  float s;
  std::int64_t n;
  static constexpr int V = 4;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t item) const {
    const std::int64_t i0 = item * V;
    if (i0 + V <= n) {
      float a[V], b[V];
      for (int v = 0; v < V; ++v)
        a[v] = src(i0 + v);
      if (Add)
        for (int v = 0; v < V; ++v)
          b[v] = z(i0 + v);
      for (int v = 0; v < V; ++v)
        dst(i0 + v) = Add ? a[v] + s * b[v] : a[v];
    } else {
      for (std::int64_t i = i0; i < n; ++i)
        dst(i) = Add ? src(i) + s * z(i) : src(i);
    }
  }
};

template <bool Add, class Exec, class View>
double best_rate(const Exec& exec, const View& x, const View& y, const View& z,
                 std::uint64_t sample_bytes) {
  constexpr bool host =
      Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename Exec::memory_space>::accessible;
  const std::int64_t n = std::int64_t(x.extent(0));
  const double pass_bytes = (Add ? 3.0 : 2.0) * double(n) * sizeof(float);
  // GPUs: at least 1 GiB a sample. A sample is a chain of launches there, and the one fence
  // (several microseconds) over two launches of a 100 MB working set would cost about 10%: more
  // than a case of 800 MB timed one launch at a time pays.
  const double bytes = host ? double(sample_bytes) : std::max(double(sample_bytes), 0x1p30);
  const int passes = int(std::clamp(bytes / pass_bytes, 2.0, 1e6));
  const float s = 0.5f; // the arrays hold zeros: no denormals, no overflow
  std::function<void()> sample;
  if constexpr (host) {
    const int parts = std::max(1, compat::concurrency(exec));
    const HostPasses<Add> body{x.data(), y.data(), z.data(), s, n, parts, passes};
    sample = [=] {
      Kokkos::parallel_for("miniapp::ceiling::level", Kokkos::RangePolicy<Exec>(exec, 0, parts),
                           body);
    };
  } else {
    const std::int64_t items = (n + 3) / 4;
    sample = [=] {
      for (int p = 0; p < passes; ++p)
        Kokkos::parallel_for(
            "miniapp::ceiling::level",
            Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>(exec, 0, items),
            DevicePass<View, Add>{p % 2 ? x : y, p % 2 ? y : x, z, s, n});
    };
  }
  const auto fence = [&] { exec.fence(); };
  const double one = time_fenced(fence, sample);
  const std::vector<double> t = time_launches(
      fence, sample, 1, reps_for(one, 0.025, 5, 100), [] { return true; }, 0.005);
  return double(passes) * pass_bytes / *std::min_element(t.begin(), t.end()) * 1e-9;
}

template <class Exec>
double level_bandwidth(const Exec& exec, std::uint64_t working_set_bytes,
                       std::uint64_t sample_bytes) {
  using View = Kokkos::View<float*, typename Exec::memory_space>;
  // Three arrays (the add's) in the working set; at least 4 elements per thread.
  const std::int64_t n =
      std::max<std::int64_t>(std::int64_t(working_set_bytes / (3 * sizeof(float))),
                             4 * std::int64_t(std::max(1, compat::concurrency(exec))));
  View x("miniapp::ceiling::x", n), y("miniapp::ceiling::y", n), z("miniapp::ceiling::z", n);
  return std::max(best_rate<false>(exec, x, y, z, sample_bytes),
                  best_rate<true>(exec, x, y, z, sample_bytes));
}

} // namespace

double measure_level_bandwidth(const std::string& backend, std::uint64_t working_set_bytes,
                               std::uint64_t sample_bytes) {
  return with_backend(
      backend, [&](auto exec) { return level_bandwidth(exec, working_set_bytes, sample_bytes); });
}

} // namespace miniapp
