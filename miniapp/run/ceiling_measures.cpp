// The ceilings' measurements on a backend (run/ceilings.hpp): copy bandwidth, pinned uploads,
// and the vendor GEMM's rate, one estimate or until stable. MeasuredCeilings decides which it
// needs.
#include "run/ceilings.hpp"

#include "core/backends.hpp"
#include "core/timing.hpp"
#include "kernels/families.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <functional>
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

namespace {
// Calls `with` with one estimate of the vendor GEMM at the shape and precision of `of`: GFLOP/s
// of the best sample of about 0.1 s of launches.
template <class F>
auto with_vendor_estimate(const Case& of, const std::string& backend, double warmup_s,
                          const F& with) {
  Case v = of;
  v.variant = family(of.family).ceiling_variant;
  v.print = false;
  v.tile_auto = v.team_auto = false;
  auto k = make_kernel_case(v, backend);
  k->upload();
  const auto fence = [&] { k->fence(); };
  const auto launch = [&] { k->run(); };
  // Two untimed launches (library handle, heuristics) and `warmup_s` of them, then estimates of
  // about 0.1 s of timed samples each; samples chain launches as the case's do (core/timing.hpp).
  const double one = summarize(time_launches(
                                   fence, launch, 2, 1, [] { return true; }, warmup_s))
                         .median;
  const int reps = reps_for(one * launches_per_sample(one, kernel_sample_seconds), 0.1, 10, 2000);
  // Each estimate is the best sample of its batch (as a level's bandwidth): a median over a batch
  // that another process interrupted read 4 GFLOP/s where the vendor case itself ran at 180.
  return with([&] {
    const std::vector<double> t =
        time_samples(
            fence, launch, 1, reps, Sampling{kernel_sample_seconds}, [] { return true; }, 0)
            .seconds; // warm already
    return k->work().flops / *std::min_element(t.begin(), t.end()) * 1e-9;
  });
}
} // namespace

StableEstimate measure_vendor_gemm(const Case& of, const std::string& backend) {
  return with_vendor_estimate(of, backend, warmup_seconds,
                              [](const std::function<double()>& estimate) {
                                return estimate_until_stable(estimate, kVendorTolerance);
                              });
}

double measure_vendor_gemm_once(const Case& of, const std::string& backend) {
  return with_vendor_estimate(of, backend, kRecheckWarmupSeconds,
                              [](const std::function<double()>& estimate) { return estimate(); });
}

} // namespace miniapp
