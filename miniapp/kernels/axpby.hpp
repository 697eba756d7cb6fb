#pragma once
// axpby family: R = a*A + b*B (the paper's kernel), out of place or in place (R aliases A).
//   flat    one work item per element over the contiguous storage (1D range)
//   mdrange a 2D MDRange with the right index fastest (coalesced for row-major data on GPUs)
//   team    a team per row, threads across the row
#include "kernels/launch_limits.hpp"

#include <Kokkos_Core.hpp>

#include <cstdint>

namespace miniapp::kernels {

template <class Exec, class VA, class VB, class VR>
void axpby_flat(const Exec& exec, typename VR::non_const_value_type a, const VA& A,
                typename VR::non_const_value_type b, const VB& B, const VR& R) {
  const auto* pa = A.data();
  const auto* pb = B.data();
  auto* pr = R.data();
  const std::int64_t n = std::int64_t(R.extent(0)) * R.extent(1);
  // GPUs: each work item takes V = 4 contiguous elements, 2V independent loads in flight per
  // thread (one element per item reached only about a third of the copy bandwidth on an H200
  // with Kokkos 3.4). Host backends keep one element per item: their loop then vectorises, and
  // V = 4 ran at 68% of the host copy where one element ran at 100% (2-core dev machine).
  constexpr bool host =
      Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename Exec::memory_space>::accessible;
  constexpr int V = host ? 1 : 4;
  const std::int64_t items = (n + V - 1) / V;
  Kokkos::parallel_for(
      "miniapp::axpby::flat",
      Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>(exec, 0, items),
      KOKKOS_LAMBDA(const std::int64_t item) {
        const std::int64_t i0 = item * V;
        if (i0 + V <= n) {
          decltype(a) x[V], y[V];
          for (int v = 0; v < V; ++v)
            x[v] = pa[i0 + v];
          for (int v = 0; v < V; ++v)
            y[v] = pb[i0 + v];
          for (int v = 0; v < V; ++v)
            pr[i0 + v] = a * x[v] + b * y[v];
        } else {
          for (std::int64_t i = i0; i < n; ++i)
            pr[i] = a * pa[i] + b * pb[i];
        }
      });
}

template <class Exec, class VA, class VB, class VR>
void axpby_mdrange(const Exec& exec, typename VR::non_const_value_type a, const VA& A,
                   typename VR::non_const_value_type b, const VB& B, const VR& R) {
  // Iterate::Right for both tiles and elements: the default on CUDA walks the left index fastest,
  // which does not coalesce on LayoutRight data. Tiles of 1 x 256 besides: Kokkos 3.4's CUDA
  // MDRange puts threadIdx.x on the first index whatever the order, so only a tile one row high
  // makes a warp read one row.
  using Policy =
      Kokkos::MDRangePolicy<Exec, Kokkos::Rank<2, Kokkos::Iterate::Right, Kokkos::Iterate::Right>>;
  const std::int64_t m = R.extent(0), n = R.extent(1);
  Kokkos::parallel_for(
      "miniapp::axpby::mdrange", Policy(exec, {0, 0}, {m, n}, {1, n < 256 ? n : 256}),
      KOKKOS_LAMBDA(const std::int64_t i, const std::int64_t j) {
        R(i, j) = a * A(i, j) + b * B(i, j);
      });
}

template <class Exec, class VA, class VB, class VR>
void axpby_team(const Exec& exec, typename VR::non_const_value_type a, const VA& A,
                typename VR::non_const_value_type b, const VB& B, const VR& R, int team_size = 0) {
  using Policy = Kokkos::TeamPolicy<Exec>;
  using Member = typename Policy::member_type;
  const int m = R.extent(0), n = R.extent(1);
  auto body = KOKKOS_LAMBDA(const Member& team) {
    const int i = team.league_rank();
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, n),
                         [&](const int j) { R(i, j) = a * A(i, j) + b * B(i, j); });
  };
  Policy probe(exec, m, Kokkos::AUTO);
  const int ts =
      team_size > 0 ? fit_team_size(probe, body, 0, team_size, "miniapp::axpby::team")
                    : record_team_size(probe.team_size_recommended(body, Kokkos::ParallelForTag()));
  Kokkos::parallel_for("miniapp::axpby::team", Policy(exec, m, ts), body);
}

} // namespace miniapp::kernels
