#include "run/ceilings.hpp"

#include "kernels/families.hpp"
#include "core/backends.hpp"
#include "core/timing.hpp"

#include <Kokkos_Core.hpp>

#include <cstdio>
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
  Case c;
  c.family = "axpby";
  c.variant = "flat";
  c.m = 1;
  c.n = std::int64_t(bytes / sizeof(float));
  c.pinned = true;
  c.in_place = true;
  auto k = make_kernel_case(c, backend);
  if (!k->transfers_are_copies())
    return 0;
  const std::vector<double> t =
      time_launches([&] { k->fence(); }, [&] { k->upload(); }, 1, reps); // A and B: 2 arrays
  return 2.0 * double(bytes) / summarize(t).median * 1e-9;
}

double measure_vendor_gemm(const Case& of, const std::string& backend) {
  Case v = of;
  v.variant = "vendor";
  v.print = false;
  v.tile_auto = v.team_auto = false;
  auto k = make_kernel_case(v, backend);
  k->upload();
  const auto fence = [&] { k->fence(); };
  const auto launch = [&] { k->run(); };
  // Two untimed launches (library handle, heuristics), then about 0.2 s of timed ones.
  const double one = summarize(time_launches(fence, launch, 2, 1)).median;
  const std::vector<double> t = time_launches(
      fence, launch, 1, reps_for(one, 0.2, 10, 2000), [] { return true; }, 0); // warm already
  return k->work().flops / summarize(t).median * 1e-9;
}

double MeasuredCeilings::copy_gbs() {
  if (copy_gbs_ == 0)
    copy_gbs_ = measure_copy_bandwidth(backend_, std::size_t(256) << 20, 20);
  return copy_gbs_;
}

void MeasuredCeilings::attach(CaseResult& r, const std::string& backend) {
  if (backend != backend_)
    return;
  const Family& f = family(r.c.family);
  if (f.ceiling == Ceiling::vendor_gemm) {
    if (r.c.precision == Precision::int32)
      return;
    const auto key = std::make_tuple(int(r.c.precision), r.c.m, r.c.n, r.c.k);
    // Always measured by measure_vendor_gemm, also for a vendor case: the case's own time is
    // a sample of the thing the ceiling estimates, not the ceiling.
    if (!vendor_gflops_.count(key)) {
      try {
        vendor_gflops_[key] = measure_vendor_gemm(r.c, backend);
      } catch (const std::exception&) {
        vendor_gflops_[key] = -1; // no vendor BLAS for this backend or precision
      }
    }
    const double g = vendor_gflops_[key];
    if (g > 0) {
      r.ceiling_name = "vendor GEMM";
      r.ceiling = g;
      r.ceiling_unit = "GFLOP/s";
      r.pct_of_ceiling = 100.0 * r.gflops / g;
    }
  } else {
    r.ceiling_name = "copy bandwidth";
    r.ceiling = copy_gbs();
    r.ceiling_unit = "GB/s";
    r.pct_of_ceiling = 100.0 * r.gbs / r.ceiling;
  }
}

void MeasuredCeilings::print(std::ostream& os) const {
  char buf[200];
  if (copy_gbs_ > 0) {
    std::snprintf(buf, sizeof buf,
                  "ceiling: copy bandwidth %.1f GB/s on %s (bytes read + written)\n", copy_gbs_,
                  backend_.c_str());
    os << buf;
  }
  for (const auto& [key, g] : vendor_gflops_) {
    if (g <= 0)
      continue;
    std::snprintf(buf, sizeof buf, "ceiling: vendor GEMM %s %lldx%lldx%lld: %.1f GFLOP/s\n",
                  to_string(Precision(std::get<0>(key))), (long long)std::get<1>(key),
                  (long long)std::get<2>(key), (long long)std::get<3>(key), g);
    os << buf;
  }
}

} // namespace miniapp
