#pragma once
// matmul tiled_rb, the general register-blocked kernel for any team size (what GPUs run when the
// user fixes team_size); labelled miniapp::matmul::tiled_rb.
#include "kernels/launch_limits.hpp"
#include "kernels/matmul_common.hpp"

#include <Kokkos_Core.hpp>

namespace miniapp::kernels {

// The general register-blocked team-scratch product, for any team size: what GPUs run when the
// user fixes team_size (with 256 it is the GPU kernel of runs 1-5: one scratch stage, scalar
// scratch loads, the next k-tile prefetched into registers). A BM x BN output tile per team; each
// thread owns a TM x TN block of it. Interleaved layout: a thread's rows/columns are strided by the
// thread grid so scratch reads hit distinct banks and C stores coalesce; otherwise contiguous TN
// columns. A's tile is stored transposed (k-major) in scratch. Teams smaller than the thread grid
// walk several blocks and keep their partial sums in C between k-tiles.
template <int BM, int BN, int BK, int TM, int TN, bool Interleave>
struct RegisterBlocking {
  static constexpr int threads = (BM / TM) * (BN / TN);
  static constexpr int a_stride = BM + (Interleave ? 4 : 0); // padding avoids bank conflicts
};

template <int BM, int BN, int BK, int TM, int TN, bool IL, class Exec, class VA, class VB, class VC>
void matmul_tiled_rb_impl(const Exec& exec, const VA& A, const VB& B, const VC& C, int team_size) {
  using T = typename VC::non_const_value_type;
  using Policy = Kokkos::TeamPolicy<Exec>;
  using Member = typename Policy::member_type;
  using Cfg = RegisterBlocking<BM, BN, BK, TM, TN, IL>;
  constexpr int GR = BM / TM, GC = BN / TN; // thread grid
  const int M = C.extent(0), N = C.extent(1), K = A.extent(1);
  const int tiles_n = (N + BN - 1) / BN;
  const int league = ((M + BM - 1) / BM) * tiles_n;
  const std::size_t bytes = sizeof(T) * (std::size_t(BK) * Cfg::a_stride + std::size_t(BK) * BN);
  // GPUs: on-chip shared memory (level 0). Host tiles are larger than the 32 KiB level 0 allows,
  // and host level 1 is the same cache-resident memory.
  constexpr int level =
      Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename Exec::memory_space>::accessible ? 1
                                                                                             : 0;
  check_scratch<Policy>("miniapp::matmul::tiled_rb", bytes, level);

  auto body = KOKKOS_LAMBDA(const Member& team) {
    T* As = static_cast<T*>(team.team_scratch(level).get_shmem(sizeof(T) * BK * Cfg::a_stride));
    T* Bs = static_cast<T*>(team.team_scratch(level).get_shmem(sizeof(T) * BK * BN));
    const int row0 = (team.league_rank() / tiles_n) * BM;
    const int col0 = (team.league_rank() % tiles_n) * BN;
    const int nthreads = team.team_size(), rank = team.team_rank();
    T acc[TM][TN];
    for (int i = 0; i < TM; ++i)
      for (int j = 0; j < TN; ++j)
        acc[i][j] = 0;
    auto row_of = [&](int tr, int i) { return IL ? tr + i * GR : tr * TM + i; };
    auto col_of = [&](int tc, int j) { return IL ? tc + j * GC : tc * TN + j; };
    auto a_at = [&](int r, int c) { return (row0 + r < M && c < K) ? A(row0 + r, c) : T(0); };
    auto b_at = [&](int r, int c) { return (r < K && col0 + c < N) ? B(r, col0 + c) : T(0); };
    // The inner product of one k-tile for the thread's TM x TN block.
    auto multiply = [&](int tr, int tc) {
      for (int kk = 0; kk < BK; ++kk) {
        T a[TM], b[TN];
        for (int i = 0; i < TM; ++i)
          a[i] = As[kk * Cfg::a_stride + row_of(tr, i)];
        for (int j = 0; j < TN; ++j)
          b[j] = Bs[kk * BN + col_of(tc, j)];
        for (int i = 0; i < TM; ++i)
          for (int j = 0; j < TN; ++j)
            acc[i][j] += a[i] * b[j];
      }
    };

    if (nthreads == Cfg::threads) {
      // GPU path: one block per thread, sums in registers; the next k-tile is read from global
      // memory into registers while the current one is multiplied (one block per SM fits at
      // this register count, so nothing else would hide that latency).
      constexpr int LA = BM * BK / Cfg::threads, LB = BK * BN / Cfg::threads;
      T next_a[LA], next_b[LB];
      auto fetch = [&](int k0) {
        for (int q = 0; q < LA; ++q) {
          const int l = rank + q * Cfg::threads;
          next_a[q] = a_at(l / BK, k0 + l % BK);
        }
        for (int q = 0; q < LB; ++q) {
          const int l = rank + q * Cfg::threads;
          next_b[q] = b_at(k0 + l / BN, l % BN);
        }
      };
      const int tr = rank / GC, tc = rank % GC;
      fetch(0);
      for (int k0 = 0; k0 < K; k0 += BK) {
        for (int q = 0; q < LA; ++q) {
          const int l = rank + q * Cfg::threads;
          As[(l % BK) * Cfg::a_stride + l / BK] = next_a[q];
        }
        for (int q = 0; q < LB; ++q)
          Bs[rank + q * Cfg::threads] = next_b[q];
        team.team_barrier();
        if (k0 + BK < K)
          fetch(k0 + BK);
        multiply(tr, tc);
        team.team_barrier();
      }
      for (int i = 0; i < TM; ++i)
        for (int j = 0; j < TN; ++j) {
          const int r = row_of(tr, i), c = col_of(tc, j);
          if (row0 + r < M && col0 + c < N)
            C(row0 + r, col0 + c) = acc[i][j];
        }
      return;
    }

    // Host path (teams smaller than the thread grid): each thread walks several blocks and keeps
    // their partial sums in C between k-tiles; BK is deep so that reload is amortised.
    for (int k0 = 0; k0 < K; k0 += BK) {
      for (int l = rank; l < BM * BK; l += nthreads)
        As[(l % BK) * Cfg::a_stride + l / BK] = a_at(l / BK, k0 + l % BK);
      for (int l = rank; l < BK * BN; l += nthreads)
        Bs[l] = b_at(k0 + l / BN, l % BN);
      team.team_barrier();
      for (int blk = rank; blk < Cfg::threads; blk += nthreads) {
        const int tr = blk / GC, tc = blk % GC;
        for (int i = 0; i < TM; ++i)
          for (int j = 0; j < TN; ++j) {
            const int r = row_of(tr, i), c = col_of(tc, j);
            acc[i][j] = (k0 == 0 || row0 + r >= M || col0 + c >= N) ? T(0) : C(row0 + r, col0 + c);
          }
        multiply(tr, tc);
        for (int i = 0; i < TM; ++i)
          for (int j = 0; j < TN; ++j) {
            const int r = row_of(tr, i), c = col_of(tc, j);
            if (row0 + r < M && col0 + c < N)
              C(row0 + r, col0 + c) = acc[i][j];
          }
      }
      team.team_barrier();
    }
    if (K == 0)
      for (int l = rank; l < BM * BN; l += nthreads)
        if (row0 + l / BN < M && col0 + l % BN < N)
          C(row0 + l / BN, col0 + l % BN) = T(0);
  };
  launch_with_scratch<Policy>("miniapp::matmul::tiled_rb", exec, league, body, Cfg::threads,
                              team_size, bytes, level);
}

} // namespace miniapp::kernels
