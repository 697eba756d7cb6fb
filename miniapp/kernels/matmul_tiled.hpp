#pragma once
// matmul tiled, the classic algorithm: a team per TW x TW output tile, A and B tiles in team
// scratch (tile_static / __local), team_barrier() after loading and before the next load;
// labelled miniapp::matmul::tiled.
#include "kernels/launch_limits.hpp"
#include "kernels/matmul_common.hpp"

#include <Kokkos_Core.hpp>

namespace miniapp::kernels {

// TWc > 0 fixes the tile width at compile time (inner loops unroll); TWc == 0 takes tw at run time.
template <int TWc, class Exec, class VA, class VB, class VC>
void matmul_tiled(const Exec& exec, const VA& A, const VB& B, const VC& C, int tw,
                  int team_size = 0) {
  using T = typename VC::non_const_value_type;
  using Policy = Kokkos::TeamPolicy<Exec>;
  using Member = typename Policy::member_type;
  const int TW = TWc > 0 ? TWc : tw;
  const int M = C.extent(0), N = C.extent(1), K = A.extent(1);
  const int tiles_n = (N + TW - 1) / TW;
  const int league = ((M + TW - 1) / TW) * tiles_n;
  // A compile-time width that is a whole number of 16-byte fragments reads its row of the A tile
  // one fragment at a time: the same sums in the same order, but per V products one
  // shared-memory load of A (a broadcast within the row's threads) instead of V. The scratch
  // loads per FMA fall from 2 to 1 + 1/V (1.25 in float32), which raises the bound shared memory
  // puts on this algorithm from 1/8 to 1/5 of the FP32 peak (docs/performance.md).
  // (static members, not local constants: nvcc cannot capture a local first named in an
  // `if constexpr` of an extended lambda)
  using Rows = RowFragments<T, TWc>;
  const std::size_t bytes = 2 * sizeof(T) * std::size_t(TW) * TW + (Rows::used ? 16 : 0);
  check_scratch<Policy>("miniapp::matmul::tiled", bytes);

  auto body = KOKKOS_LAMBDA(const Member& team) {
    const int tw_ = TWc > 0 ? TWc : TW;
    // Only A's tile is aligned to 16 bytes, and only where it is read in fragments (aligning
    // both tiles for scalar reads was tried on the H200: TW=16 went from 11.3% to 9.1% of cuBLAS).
    T* As = static_cast<T*>(Rows::used
                                ? team.team_scratch(0).get_shmem_aligned(sizeof(T) * tw_ * tw_, 16)
                                : team.team_scratch(0).get_shmem(sizeof(T) * tw_ * tw_));
    T* Bs = static_cast<T*>(team.team_scratch(0).get_shmem(sizeof(T) * tw_ * tw_));
    const int row0 = (team.league_rank() / tiles_n) * tw_;
    const int col0 = (team.league_rank() % tiles_n) * tw_;
    const int nthreads = team.team_size(), rank = team.team_rank();
    // GPUs run one thread per output and keep the sum in a register; host teams are smaller,
    // so each thread owns several outputs and accumulates them in C itself.
    const bool one_per_thread = nthreads == tw_ * tw_;
    auto a_at = [&](int r, int c) { return (row0 + r < M && c < K) ? A(row0 + r, c) : T(0); };
    auto b_at = [&](int r, int c) { return (r < K && col0 + c < N) ? B(r, col0 + c) : T(0); };
    // One thread per output: the thread's two elements of the next tiles are read from global
    // memory while the current ones are multiplied (the same tiles, barriers and sums; only the
    // loads move earlier, so their latency hides behind the products).
    const int r1 = rank / tw_, c1 = rank % tw_;
    T next_a = 0, next_b = 0;
    if (one_per_thread) {
      next_a = a_at(r1, c1);
      next_b = b_at(r1, c1);
    }
    T acc = 0;
    for (int k0 = 0; k0 < K; k0 += tw_) {
      if (one_per_thread) {
        As[rank] = next_a;
        Bs[rank] = next_b;
      } else {
        for (int l = rank; l < tw_ * tw_; l += nthreads) {
          const int r = l / tw_, c = l % tw_;
          As[l] = a_at(r, k0 + c); // zero padding past the matrix
          Bs[l] = b_at(k0 + r, c);
        }
      }
      team.team_barrier(); // tiles loaded (tile_barrier::wait)
      if (one_per_thread && k0 + tw_ < K) {
        next_a = a_at(r1, k0 + tw_ + c1);
        next_b = b_at(k0 + tw_ + r1, c1);
      }
      for (int l = rank; l < tw_ * tw_; l += nthreads) {
        const int r = l / tw_, c = l % tw_;
        T s = 0;
        if constexpr (Rows::used) {
          MINIAPP_UNROLL
          for (int kk = 0; kk < TWc; kk += Rows::V) {
            const Fragment<T> a = *reinterpret_cast<const Fragment<T>*>(As + r * TWc + kk);
            MINIAPP_UNROLL
            for (int v = 0; v < Rows::V; ++v)
              s += a.v[v] * Bs[(kk + v) * TWc + c];
          }
        } else {
          for (int kk = 0; kk < tw_; ++kk)
            s += As[r * tw_ + kk] * Bs[kk * tw_ + c];
        }
        if (one_per_thread) {
          acc += s;
        } else if (row0 + r < M && col0 + c < N) {
          C(row0 + r, col0 + c) = k0 == 0 ? s : C(row0 + r, col0 + c) + s;
        }
      }
      team.team_barrier(); // everyone is done with the tiles before they are overwritten
    }
    if (one_per_thread && row0 + team.team_rank() / tw_ < M && col0 + team.team_rank() % tw_ < N)
      C(row0 + rank / tw_, col0 + rank % tw_) = acc;
    if (K == 0)
      for (int l = rank; l < tw_ * tw_; l += nthreads)
        if (row0 + l / tw_ < M && col0 + l % tw_ < N)
          C(row0 + l / tw_, col0 + l % tw_) = T(0);
  };
  launch_with_scratch<Policy>("miniapp::matmul::tiled", exec, league, body, TW * TW, team_size,
                              bytes);
}

// Dispatch the classic tiled kernel to a compile-time width where one exists.
template <class Exec, class VA, class VB, class VC>
void matmul_tiled_any(const Exec& exec, const VA& A, const VB& B, const VC& C, int tw,
                      int team_size = 0) {
  switch (tw) {
  case 2:
    return matmul_tiled<2>(exec, A, B, C, tw, team_size);
  case 4:
    return matmul_tiled<4>(exec, A, B, C, tw, team_size);
  case 8:
    return matmul_tiled<8>(exec, A, B, C, tw, team_size);
  case 16:
    return matmul_tiled<16>(exec, A, B, C, tw, team_size);
  case 32:
    return matmul_tiled<32>(exec, A, B, C, tw, team_size);
  default:
    return matmul_tiled<0>(exec, A, B, C, tw, team_size);
  }
}

} // namespace miniapp::kernels
