#pragma once
// matmul family: C = A * B for any M, N, K (row-major).
//   flat      one work item per output element (C++ AMP parallel_for_each / OpenCL matmul_naive)
//   tiled     the classic algorithm: a team per TWxTW output tile, A and B tiles in team scratch
//             (tile_static / __local), team_barrier() after loading and before the next load
//   tiled_rb  larger tiles, each thread keeps a small block of outputs in registers
// Kernels are labelled miniapp::matmul::<variant> for Kokkos Tools.
#include "kernels/launch_limits.hpp"

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <stdexcept>
#include <string>

namespace miniapp::kernels {

template <class Exec, class VA, class VB, class VC>
void matmul_flat(const Exec& exec, const VA& A, const VB& B, const VC& C) {
  using T = typename VC::non_const_value_type;
  const int M = C.extent(0), N = C.extent(1), K = A.extent(1);
  // Consecutive work items take consecutive columns: B and C accesses coalesce on GPUs,
  // A(i, k) is the same for a whole row.
  Kokkos::parallel_for(
      "miniapp::matmul::flat",
      Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>(exec, 0, std::int64_t(M) * N),
      KOKKOS_LAMBDA(const std::int64_t idx) {
        const int i = int(idx / N), j = int(idx % N);
        T acc = 0;
        for (int k = 0; k < K; ++k)
          acc += A(i, k) * B(k, j);
        C(i, j) = acc;
      });
}

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
  const std::size_t bytes = 2 * sizeof(T) * std::size_t(TW) * TW;
  check_scratch<Policy>("miniapp::matmul::tiled", bytes);

  auto body = KOKKOS_LAMBDA(const Member& team) {
    const int tw_ = TWc > 0 ? TWc : TW;
    // (Aligning these to 16 bytes was tried on the H200: TW=16 went from 11.3% to 9.1% of
    // cuBLAS, so the two plain allocations stay.)
    T* As = static_cast<T*>(team.team_scratch(0).get_shmem(sizeof(T) * tw_ * tw_));
    T* Bs = static_cast<T*>(team.team_scratch(0).get_shmem(sizeof(T) * tw_ * tw_));
    const int row0 = (team.league_rank() / tiles_n) * tw_;
    const int col0 = (team.league_rank() % tiles_n) * tw_;
    const int nthreads = team.team_size(), rank = team.team_rank();
    // GPUs run one thread per output and keep the sum in a register; host teams are smaller,
    // so each thread owns several outputs and accumulates them in C itself.
    const bool one_per_thread = nthreads == tw_ * tw_;
    T acc = 0;
    for (int k0 = 0; k0 < K; k0 += tw_) {
      for (int l = rank; l < tw_ * tw_; l += nthreads) {
        const int r = l / tw_, c = l % tw_;
        As[l] = (row0 + r < M && k0 + c < K) ? A(row0 + r, k0 + c) : T(0); // zero padding
        Bs[l] = (k0 + r < K && col0 + c < N) ? B(k0 + r, col0 + c) : T(0);
      }
      team.team_barrier(); // tiles loaded (tile_barrier::wait)
      for (int l = rank; l < tw_ * tw_; l += nthreads) {
        const int r = l / tw_, c = l % tw_;
        T s = 0;
        for (int kk = 0; kk < tw_; ++kk)
          s += As[r * tw_ + kk] * Bs[kk * tw_ + c];
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
  Policy probe(exec, league, Kokkos::AUTO);
  probe.set_scratch_size(0, Kokkos::PerTeam(bytes));
  const int ts = fit_team_size(probe, body, TW * TW, team_size, "miniapp::matmul::tiled");
  Policy policy(exec, league, ts);
  policy.set_scratch_size(0, Kokkos::PerTeam(bytes));
  Kokkos::parallel_for("miniapp::matmul::tiled", policy, body);
}

// Register-blocked team-scratch product. A BM x BN output tile per team; each thread owns a TM x TN
// block of it. GPU layout (Interleave): a thread's rows/columns are strided by the thread grid so
// scratch reads hit distinct banks and C stores coalesce. Host layout: contiguous TN columns so
// the compiler vectorises the inner loop. A's tile is stored transposed (k-major) in scratch.
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
  Policy probe(exec, league, Kokkos::AUTO);
  probe.set_scratch_size(level, Kokkos::PerTeam(bytes));
  const int ts = fit_team_size(probe, body, Cfg::threads, team_size, "miniapp::matmul::tiled_rb");
  Policy policy(exec, league, ts);
  policy.set_scratch_size(level, Kokkos::PerTeam(bytes));
  Kokkos::parallel_for("miniapp::matmul::tiled_rb", policy, body);
}

// Tile shapes per backend and tile width (64 or 128). GPUs: 256 threads, 8x8 outputs each
// (4x4 for 64x64 tiles, and for every float64 product).
// Host: one thread per team walks 4x8 blocks with a deep k-tile, so the partial sums it reloads
// from C are amortised over BK multiply-adds.
template <class Exec, class VA, class VB, class VC>
void matmul_tiled_rb(const Exec& exec, const VA& A, const VB& B, const VC& C, int tile,
                     int team_size = 0) {
  constexpr bool host =
      Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename Exec::memory_space>::accessible;
  if (host) {
    if (tile == 128)
      matmul_tiled_rb_impl<128, 128, 128, 4, 8, false>(exec, A, B, C, team_size);
    else
      matmul_tiled_rb_impl<64, 64, 128, 4, 8, false>(exec, A, B, C, team_size);
  } else {
    using T = typename VC::non_const_value_type;
    // 128x128 with 8x8 outputs per thread needs 255 registers in float64 and spills: float64
    // always runs the 64x64 shape on GPUs.
    if (tile == 64 || sizeof(T) == 8)
      matmul_tiled_rb_impl<64, 64, 16, 4, 4, true>(exec, A, B, C, team_size);
    else
      matmul_tiled_rb_impl<128, 128, 16, 8, 8, true>(exec, A, B, C, team_size);
  }
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
