#pragma once
// tile_average family: the mean of every S x S tile of a matrix, one team per tile.
//   leader       tile loaded into team scratch (tile_static), a barrier, then one thread sums it,
//                as the C++ AMP example does (simple, does not scale with S)
//   team_reduce  a team reduction over the tile (the scalable way)
// A tile that overhangs the matrix edge is averaged over the elements it actually holds.
#include "kernels/launch_limits.hpp"

#include <Kokkos_Core.hpp>

namespace miniapp::kernels {

template <class Exec, class VX, class VOut>
void tile_average_leader(const Exec& exec, const VX& X, const VOut& avg, int S, int team_size = 0) {
  using T = typename VOut::non_const_value_type;
  using Policy = Kokkos::TeamPolicy<Exec>;
  using Member = typename Policy::member_type;
  const int M = X.extent(0), N = X.extent(1);
  const int tiles_n = avg.extent(1), league = avg.extent(0) * avg.extent(1);
  const std::size_t bytes = sizeof(T) * std::size_t(S) * S;
  check_scratch<Policy>("miniapp::tile_average::leader", bytes);
  auto body = KOKKOS_LAMBDA(const Member& team) {
    T* tile = static_cast<T*>(team.team_scratch(0).get_shmem(sizeof(T) * S * S));
    const int ti = team.league_rank() / tiles_n, tj = team.league_rank() % tiles_n;
    const int rows = (ti + 1) * S <= M ? S : M - ti * S;
    const int cols = (tj + 1) * S <= N ? S : N - tj * S;
    for (int l = team.team_rank(); l < S * S; l += team.team_size()) {
      const int r = l / S, c = l % S;
      tile[l] = (r < rows && c < cols) ? X(ti * S + r, tj * S + c) : T(0);
    }
    team.team_barrier(); // tile loaded (tile_barrier::wait)
    if (team.team_rank() == 0) {
      T sum = 0;
      for (int l = 0; l < S * S; ++l)
        sum += tile[l];
      avg(ti, tj) = sum / T(rows * cols);
    }
  };
  launch_with_scratch<Policy>("miniapp::tile_average::leader", exec, league, body, S * S, team_size,
                              bytes);
}

// One team per strip of tiles (S rows high): each thread of the team takes one tile, the vector
// lanes of that thread take the tile's columns, so neighbouring lanes read neighbouring addresses;
// each lane sums its column down the tile and a vector reduction (parallel_reduce over
// ThreadVectorRange) gives the tile's sum.
template <class Exec, class VX, class VOut>
void tile_average_team_reduce(const Exec& exec, const VX& X, const VOut& avg, int S,
                              int team_size = 0) {
  using T = typename VOut::non_const_value_type;
  using Policy = Kokkos::TeamPolicy<Exec>;
  using Member = typename Policy::member_type;
  const int M = X.extent(0), N = X.extent(1);
  const int tiles_m = avg.extent(0), tiles_n = avg.extent(1);
  constexpr bool host =
      Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename Exec::memory_space>::accessible;
  int lanes = 1; // a power of two no larger than S (and 32, the largest vector on GPUs)
  while (!host && lanes * 2 <= S && lanes * 2 <= 32)
    lanes *= 2;
  const int tiles_per_team = host ? 1 : 256 / lanes;
  const int chunks = (tiles_n + tiles_per_team - 1) / tiles_per_team;
  auto body = KOKKOS_LAMBDA(const Member& team) {
    const int ti = team.league_rank() / chunks;
    const int tj0 = (team.league_rank() % chunks) * tiles_per_team;
    const int rows = (ti + 1) * S <= M ? S : M - ti * S;
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, tiles_per_team), [&](const int t) {
      const int tj = tj0 + t;
      if (tj >= tiles_n)
        return;
      const int cols = (tj + 1) * S <= N ? S : N - tj * S;
      T sum = 0;
      Kokkos::parallel_reduce(
          Kokkos::ThreadVectorRange(team, cols),
          [&](const int c, T& part) {
            for (int r = 0; r < rows; ++r)
              part += X(ti * S + r, tj * S + c);
          },
          sum);
      Kokkos::single(Kokkos::PerThread(team), [&]() { avg(ti, tj) = sum / T(rows * cols); });
    });
  };
  const int league = tiles_m * chunks;
  Policy probe(exec, league, Kokkos::AUTO, lanes);
  const int ts =
      fit_team_size(probe, body, tiles_per_team, team_size, "miniapp::tile_average::team_reduce");
  Kokkos::parallel_for("miniapp::tile_average::team_reduce", Policy(exec, league, ts, lanes), body);
}

} // namespace miniapp::kernels
