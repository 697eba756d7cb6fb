#pragma once
// tile_index family: each element's global, tile and local indices, computed by a team kernel
// with league = tiles and team = positions inside a tile (C++ AMP tiled_index).
#include "kernels/launch_limits.hpp"

#include <Kokkos_Core.hpp>

namespace miniapp::kernels {

// out(i, j, 0..5) = global row, global col, tile row, tile col, local row, local col.
template <class Exec, class VOut>
void tile_index_map(const Exec& exec, const VOut& out, int tile_rows, int tile_cols,
                    int team_size = 0) {
  using Policy = Kokkos::TeamPolicy<Exec>;
  using Member = typename Policy::member_type;
  const int M = out.extent(0), N = out.extent(1);
  const int tiles_n = (N + tile_cols - 1) / tile_cols;
  const int league = ((M + tile_rows - 1) / tile_rows) * tiles_n;
  auto body = KOKKOS_LAMBDA(const Member& team) {
    const int tr = team.league_rank() / tiles_n, tc = team.league_rank() % tiles_n;
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, tile_rows * tile_cols), [&](const int l) {
      const int lr = l / tile_cols, lc = l % tile_cols;
      const int gr = tr * tile_rows + lr, gc = tc * tile_cols + lc;
      if (gr < M && gc < N) {
        out(gr, gc, 0) = gr;
        out(gr, gc, 1) = gc;
        out(gr, gc, 2) = tr;
        out(gr, gc, 3) = tc;
        out(gr, gc, 4) = lr;
        out(gr, gc, 5) = lc;
      }
    });
  };
  Policy probe(exec, league, Kokkos::AUTO);
  const int ts =
      fit_team_size(probe, body, tile_rows * tile_cols, team_size, "miniapp::tile_index::team");
  Kokkos::parallel_for("miniapp::tile_index::team", Policy(exec, league, ts), body);
}

} // namespace miniapp::kernels
