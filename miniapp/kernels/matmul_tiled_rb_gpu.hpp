#pragma once
// matmul tiled_rb, the GPU shape: two scratch stages, 16-byte fragments, warp tiling, float32's
// 16-byte global loads; labelled miniapp::matmul::tiled_rb.
#include "kernels/launch_limits.hpp"
#include "kernels/matmul_common.hpp"
#include "kernels/matmul_gpu_loads.hpp"
#include "kernels/matmul_shapes.hpp"
#include "kernels/matmul_split_k.hpp"

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <type_traits>

namespace miniapp::kernels {

// The GPU shape of tiled_rb: a BM x BN tile per team of (BM/TM) x (BN/TN) threads, each thread a
// TM x TN block of sums in registers for the whole k loop.
//   - two scratch stages: the next k-tile is read from global memory into registers while the
//     current one is multiplied, then stored into the other stage; one barrier per k-tile
//   - fragments: a thread's rows (columns) are TM/V (TN/V) runs of V = 16/sizeof(T) contiguous
//     elements, each read from scratch with one 16-byte load
//   - warp tiling: a warp is a 4 x 8 block of the thread grid (its lanes interleaved in pairs of
//     rows, below), so per k step it reads 4 distinct fragments of A and 8 of B (64 + 128 bytes,
//     the rest broadcast) for TM x TN FMAs per thread
//   - float32 reads global memory 16 bytes at a time where rows allow it (PipelinedLoads): the
//     scalar loads' address arithmetic and spills held it at 59% of cuBLAS SGEMM, 16-byte loads
//     reach 81% (H100, run 11)
//   - LaunchBounds<threads, Teams>: registers capped so that Teams teams share an SM (2: run 6)
//   - whole tiles (M, N, K multiples of BM, BN, BK: tiles_are_whole; float32 at any other size
//     through zero-padded copies of A and B, matmul_padded.hpp) take the kernel without
//     bounds tests (Full), each global load a base pointer plus a constant: the registers the
//     tests held let float32 unroll a whole k-tile without spilling, 91.6% / 94.6% of cuBLAS
//     SGEMM at 4096 / 8192 against 85.0% / 87.3% (H100, issue 26). Types without 16-byte loads
//     (float64) take it at any size of at least a tile each way (full_kernel_fits), their edge
//     tiles moved back inside A and B and K's remainder loaded first, its loads tested
//   - KU k steps of a k-tile unrolled together, the groups in a rolled loop: with all BK steps
//     unrolled the compiler hoists later steps' fragment loads ahead of their FMAs and spills at
//     the register cap (float32 BK=16: 72 bytes; float64 8x4: 160); pairs do not (issue 26)
//   - the shape's Mode (matmul_shapes.hpp): serpentine FMA order, and fragments prefetched one k
//     step ahead across the k-tile's barrier. float64 at 4096 with both (ncu, H100): FP64 pipe
//     64.5% -> 72.1% busy with prefetching alone, stalls on shared loads 0.25 -> 0.08 cycles an
//     instruction, on fixed latency 1.52 -> 1.15; float64 38% -> 41% of DGEMM, float32 90% ->
//     94% of SGEMM with the serpentine order alone (issue 26)
// Needs a team of exactly `threads`; any other team size takes matmul_tiled_rb_impl.
template <int BM, int BN, int BK, int TM, int TN>
struct PipelinedBlocking {
  static constexpr int GR = BM / TM, GC = BN / TN; // thread grid
  static constexpr int threads = GR * GC;
  static_assert(GC % 8 == 0 && GR % 4 == 0, "warps are 4 x 8 blocks of the thread grid");
  static_assert(BM * BK % threads == 0 && BK * BN % threads == 0, "whole tiles per load");
};

// The device's multiprocessors (CUDA: the property; elsewhere its concurrency over 2048 threads a
// multiprocessor, as on NVIDIA and AMD GPUs): with a shape's Teams, how many teams run at once.
template <class Exec>
int multiprocessors(const Exec& exec) {
#ifdef KOKKOS_ENABLE_CUDA
  if constexpr (std::is_same_v<Exec, Kokkos::Cuda>)
    return exec.cuda_device_prop().multiProcessorCount;
#endif
  const int n = compat::concurrency(exec) / 2048;
  return n > 0 ? n : 1;
}

template <class V>
using T_of = typename V::non_const_value_type;

// Full: with Vec, A's rows, B's columns and K are multiples of BM, BN and BK (tiles_are_whole), so
// no load of the kernel falls past the operands; without, A has at least BM rows and B BN columns
// (full_kernel_fits), a tile past their edge is moved back inside them, and only the loads of a
// first k-tile of K's remainder are tested. The launch computes C's rows
// [row_begin, row_end) (-1: to C's last row; row_begin a multiple of BM). partials: splits x (its
// rows) x N elements (splits > 1 only).
template <int BM, int BN, int BK, int TM, int TN, int Teams, int KU, int Mode, bool Vec, bool Full,
          class Exec, class VA, class VB, class VC>
void matmul_tiled_rb_pipelined(const Exec& exec, const VA& A, const VB& B, const VC& C,
                               int splits = 1, T_of<VC>* partials = nullptr, int row_begin = 0,
                               int row_end = -1) {
  using T = typename VC::non_const_value_type;
  using Cfg = PipelinedBlocking<BM, BN, BK, TM, TN>;
  constexpr int GR = Cfg::GR, GC = Cfg::GC, threads = Cfg::threads;
  constexpr int V = Fragment<T>::width;
  static_assert(TM % V == 0 && TN % V == 0, "whole fragments per thread");
  // A's k-major rows, padded 16 bytes: the transposing stores of one warp fall in distinct banks.
  constexpr int AS = BM + V;
  constexpr int stage = BK * AS + BK * BN; // elements per scratch stage
  using Load = PipelinedLoads<T, BM, BN, BK, threads, Vec>;
  // Full without 16-byte loads (full_kernel_fits): edge tiles moved back inside A and B, K's
  // remainder first. Not with them: with this, float32's whole tiles ran 6% slower at 4096 and
  // 8192 (H200, 2026-11-30: 46.0 against 49.1 TFLOP/s, at its cap of 128 registers) and 2500
  // gained nothing over its padded copies (38.6 against 38.9); float64 4000 gained 9% (21.4 ->
  // 23.4), 5000x2100x3500 9% (20.9 -> 22.8), its whole tiles nothing lost (24.3 -> 24.4).
  constexpr bool Moved = Full && !Load::vec;
  using Policy = Kokkos::TeamPolicy<Exec, Kokkos::LaunchBounds<threads, Teams>>;
  using Member = typename Policy::member_type;
  // M: the end of this launch's rows (rows past it are never stored, as rows past C's)
  const int M = row_end < 0 ? int(C.extent(0)) : row_end, N = C.extent(1), K = A.extent(1);
  const int rows = M - row_begin, tiles_n = (N + BN - 1) / BN;
  const int a_rows = A.extent(0), b_cols = B.extent(1);
  const int tiles = ((rows + BM - 1) / BM) * tiles_n;
  // Split-K: `splits` teams a tile, each over k_chunk of K (whole k-tiles), each part's sums
  // stored into `partials` (splits x rows x N), then added into C by a second launch
  // (split_k_for, kernels/matmul_split_k.hpp, says when it pays).
  const int k_chunk = split_k_chunk(splits, K, BK);
  splits = split_k_parts(splits, K, BK); // none empty (K 0: one, its sums all zero)
  const int league = tiles * splits;
  const std::size_t bytes = 2 * sizeof(T) * std::size_t(stage) + 16; // + alignment slack
  check_scratch<Policy>("miniapp::matmul::tiled_rb", bytes);
  const T* a_ptr = A.data();
  const T* b_ptr = B.data();
  const std::size_t lda = A.stride(0), ldb = B.stride(0);

  auto body = KOKKOS_LAMBDA(const Member& team) {
    T* smem = static_cast<T*>(team.team_scratch(0).get_shmem_aligned(bytes - 16, 16));
    const int tile = team.league_rank() % tiles, part = team.league_rank() / tiles;
    // Moved: a tile past A's last row (B's last column) is moved back to end there, over part of
    // the tile before it, so that it reads only rows and columns that exist; it stores only from
    // its own first row and column (tile_row0, tile_col0).
    const int tile_row0 = row_begin + (tile / tiles_n) * BM, tile_col0 = (tile % tiles_n) * BN;
    const int row0 = Moved ? at_most(tile_row0, a_rows - BM) : tile_row0;
    const int col0 = Moved ? at_most(tile_col0, b_cols - BN) : tile_col0;
    const int k_begin = part * k_chunk, k_end = at_most(K, k_begin + k_chunk);
    const int rank = team.team_rank(), warp = rank / 32, lane = rank % 32;
    // The warp's 4 x 8 block of threads with lanes interleaved in pairs of rows: lane l is row
    // (l / 16) * 2 + l % 2 and column (l % 16) / 2 of it. Per k step a quarter-warp then reads 2
    // fragments of A and 4 of B instead of 1 and 8: 2 shared-memory wavefronts a 16-byte load on
    // an H100 instead of 3 (ncu, float64 4096: 537M instead of 805M for 268M loads), float64
    // 3.8% faster, float32 unchanged (issue 26).
    const int ty = (warp / (GC / 8)) * 4 + (lane / 16) * 2 + lane % 2;
    const int tx = (warp % (GC / 8)) * 8 + (lane % 16) / 2;
    T acc[TM][TN];
    MINIAPP_UNROLL
    for (int i = 0; i < TM; ++i) {
      MINIAPP_UNROLL
      for (int j = 0; j < TN; ++j)
        acc[i][j] = 0;
    }
    // The next k-tile, in flight during the multiply. Coalesced: consecutive ranks read
    // consecutive k (A) and columns (B); zero padding past the matrix.
    T next_a[Load::CA * Load::unit], next_b[Load::CB * Load::unit];
    // Whole tiles: load q of a k-tile is at base + q * step, the bases moved one k-tile on after
    // each fetch (A: BK columns; B: BK rows).
    constexpr int U = Load::unit, ka = BK / U, nb = BN / U; // loads per row of each tile
    const T* a_at = a_ptr + std::size_t(row0 + rank / ka) * lda + k_begin + (rank % ka) * U;
    const T* b_at = b_ptr + std::size_t(k_begin + rank / nb) * ldb + col0 + (rank % nb) * U;
    // Edge tiles read rows of A and columns of B at most these (fetch below).
    const int last_row = M - 1, last_col = N - U;
    const std::size_t a_step = std::size_t(threads / ka) * lda,
                      b_step = std::size_t(threads / nb) * ldb;
    auto fetch = [&](int k0) {
      if constexpr (Full && Load::rounds) {
        MINIAPP_UNROLL
        for (int q = 0; q < Load::CA; ++q)
          load_at<Load::vec, U>(a_at + q * a_step, next_a + q * U);
        MINIAPP_UNROLL
        for (int q = 0; q < Load::CB; ++q)
          load_at<Load::vec, U>(b_at + q * b_step, next_b + q * U);
        a_at += BK;
        b_at += BK * ldb;
        return; // (not an else: nvcc's extended lambdas cannot first capture M, K inside one)
      }
      if constexpr (Load::rounds) {
        // Edge tiles in the fast path: rows of A past M and columns of B past N are read clamped
        // to the last row (column): they feed only sums of C past the matrix, which are not
        // stored, so only k (the last, partial k-tile) needs a bounds test. Every load is still
        // a row pointer plus a constant, as with whole tiles.
        const bool whole_k = k0 + BK <= k_end;
        const int ac = k0 + (rank % ka) * U, bc = at_most(col0 + (rank % nb) * U, last_col);
        MINIAPP_UNROLL
        for (int q = 0; q < Load::CA; ++q) {
          const int r = at_most(row0 + rank / ka + q * (threads / ka), last_row);
          const T* p = a_ptr + std::size_t(r) * lda + ac;
          if (whole_k || ac < k_end)
            load_at<Load::vec, U>(p, next_a + q * U);
          else
            zero_units<U>(next_a + q * U);
        }
        MINIAPP_UNROLL
        for (int q = 0; q < Load::CB; ++q) {
          const int r = k0 + rank / nb + q * (threads / nb);
          if (whole_k || r < k_end)
            load_at<Load::vec, U>(b_ptr + std::size_t(r) * ldb + bc, next_b + q * U);
          else
            zero_units<U>(next_b + q * U);
        }
        return;
      }
      MINIAPP_UNROLL
      for (int q = 0; q < Load::CA; ++q) {
        const int l = rank + q * threads, r = row0 + l / ka, c = k0 + (l % ka) * U;
        const bool in = Load::a_has(l) && r < M && c < k_end;
        load_unit<Load::vec, U>(A, a_ptr, lda, r, c, in, next_a + q * U);
      }
      MINIAPP_UNROLL
      for (int q = 0; q < Load::CB; ++q) {
        const int l = rank + q * threads, r = k0 + l / nb, c = col0 + (l % nb) * U;
        const bool in = Load::b_has(l) && r < k_end && c < N;
        load_unit<Load::vec, U>(B, b_ptr, ldb, r, c, in, next_b + q * U);
      }
    };
    // Moved: the first k-tile, k_first deep (K's remainder past whole k-tiles, else BK; 0 where K
    // is), its loads tested, zeros past it; the loop's k-tiles after it are all whole, so the
    // loop's fetch stays without a test (the first fetch is outside the loop already).
    auto fetch_first = [&](int k_first) {
      const bool a_in = (rank % ka) * U < k_first;
      MINIAPP_UNROLL
      for (int q = 0; q < Load::CA; ++q) {
        if (a_in)
          load_at<Load::vec, U>(a_at + q * a_step, next_a + q * U);
        else
          zero_units<U>(next_a + q * U);
      }
      MINIAPP_UNROLL
      for (int q = 0; q < Load::CB; ++q) {
        if (rank / nb + q * (threads / nb) < k_first)
          load_at<Load::vec, U>(b_at + q * b_step, next_b + q * U);
        else
          zero_units<U>(next_b + q * U);
      }
      a_at += k_first;
      b_at += std::size_t(k_first) * ldb;
    };
    auto store = [&](int s) {
      constexpr int U = Load::unit, ka = BK / U;
      T* As = smem + s * stage;
      T* Bs = As + BK * AS;
      MINIAPP_UNROLL
      for (int q = 0; q < Load::CA; ++q) {
        const int l = rank + q * threads;
        if (Load::a_has(l)) {
          MINIAPP_UNROLL
          for (int v = 0; v < U; ++v) // A transposed: k-major
            As[((l % ka) * U + v) * AS + l / ka] = next_a[q * U + v];
        }
      }
      MINIAPP_UNROLL
      for (int q = 0; q < Load::CB; ++q) {
        const int l = rank + q * threads;
        if (Load::b_has(l))
          store_unit<Load::vec, U>(Bs + l * U, next_b + q * U);
      }
    };
    // The TM x TN FMAs of one k step, odd rows backwards with shape_serpentine.
    auto fmas = [&](const T* a, const T* b) {
      MINIAPP_UNROLL
      for (int i = 0; i < TM; ++i) {
        MINIAPP_UNROLL
        for (int j = 0; j < TN; ++j) {
          const int jj = (Mode & shape_serpentine) && i % 2 ? TN - 1 - j : j;
          acc[i][jj] += a[i] * b[jj];
        }
      }
    };
    auto multiply = [&](int s) {
      const T* As = smem + s * stage;
      const T* Bs = As + BK * AS;
      // Groups of KU k steps, each unrolled (one group where KU = BK).
      MINIAPP_NO_UNROLL
      for (int k1 = 0; k1 < BK; k1 += KU) {
        MINIAPP_UNROLL
        for (int u = 0; u < KU; ++u) {
          const int kk = k1 + u;
          T a[TM], b[TN];
          fragments<TM / V>(As + kk * AS + ty * V, GR * V, a);
          fragments<TN / V>(Bs + kk * BN + tx * V, GC * V, b);
          fmas(a, b);
        }
      }
    };
    // Moved (with whole rounds of loads): the first k-tile is K's remainder, the loop's k0
    // starts k_first - BK early so that it still counts one k-tile a step.
    const int k_len = k_end - k_begin, k_rem = k_len % BK;
    const int k_first = Moved && Load::rounds ? (k_rem ? k_rem : at_most(BK, k_len)) : BK;
    if constexpr (Moved && Load::rounds)
      fetch_first(k_first);
    else
      fetch(k_begin);
    store(0);
    team.team_barrier();
    int s = 0;
    if constexpr ((Mode & shape_prefetch) != 0) {
      // shape_prefetch: two sets of fragments; step kk + 1's are read from scratch before step
      // kk's FMAs, and a k-tile's last step stores the next k-tile, passes the barrier and reads
      // the other stage's first fragments before its FMAs, which cover that read. The barrier
      // also orders the stores: every thread read its last fragments of the other stage before
      // the previous k-tile's barrier.
      T fa[2][TM], fb[2][TN];
      const int a_off = ty * V, b_off = tx * V;
      fragments<TM / V>(smem + a_off, GR * V, fa[0]);
      fragments<TN / V>(smem + BK * AS + b_off, GC * V, fb[0]);
      for (int k0 = k_begin + k_first - BK; k0 < k_end; k0 += BK) {
        const bool more = k0 + BK < k_end;
        const T* As = smem + s * stage;
        const T* Bs = As + BK * AS;
        if (more)
          fetch(k0 + BK); // in flight during the multiply
        MINIAPP_NO_UNROLL
        for (int k1 = 0; k1 < BK - KU; k1 += KU) {
          MINIAPP_UNROLL
          for (int u = 0; u < KU; ++u) {
            const int kk = k1 + u, cur = u % 2;
            fragments<TM / V>(As + (kk + 1) * AS + a_off, GR * V, fa[cur ^ 1]);
            fragments<TN / V>(Bs + (kk + 1) * BN + b_off, GC * V, fb[cur ^ 1]);
            fmas(fa[cur], fb[cur]);
          }
        }
        MINIAPP_UNROLL
        for (int u = 0; u < KU; ++u) { // the last group
          const int kk = BK - KU + u, cur = u % 2;
          if (u + 1 < KU) {
            fragments<TM / V>(As + (kk + 1) * AS + a_off, GR * V, fa[cur ^ 1]);
            fragments<TN / V>(Bs + (kk + 1) * BN + b_off, GC * V, fb[cur ^ 1]);
          } else if (more) {
            store(s ^ 1);
            team.team_barrier();
            const T* An = smem + (s ^ 1) * stage;
            fragments<TM / V>(An + a_off, GR * V, fa[cur ^ 1]);
            fragments<TN / V>(An + BK * AS + b_off, GC * V, fb[cur ^ 1]);
          }
          fmas(fa[cur], fb[cur]);
        }
        s ^= 1;
      }
    } else {
      for (int k0 = k_begin + k_first - BK; k0 < k_end; k0 += BK) {
        const bool more = k0 + BK < k_end;
        if (more)
          fetch(k0 + BK); // in flight during the multiply
        multiply(s);
        if (more)
          store(s ^ 1); // the stage everyone finished reading before the last barrier
        team.team_barrier();
        s ^= 1;
      }
    }
    MINIAPP_UNROLL
    for (int i = 0; i < TM; ++i) {
      const int r = row0 + (i / V) * GR * V + ty * V + i % V;
      MINIAPP_UNROLL
      for (int j = 0; j < TN; ++j) {
        const int c = col0 + (j / V) * GC * V + tx * V + j % V;
        if ((!Moved || (r >= tile_row0 && c >= tile_col0)) && r < M && c < N) {
          if (splits > 1)
            partials[(std::size_t(part) * rows + r - row_begin) * N + c] = acc[i][j];
          else
            C(r, c) = acc[i][j];
        }
      }
    }
  };
  Policy policy(exec, league, record_team_size(threads));
  policy.set_scratch_size(0, Kokkos::PerTeam(bytes));
  Kokkos::parallel_for("miniapp::matmul::tiled_rb", policy, body);
  compat::fit_scratch_carveout<Policy>(body, threads, bytes); // from the next launch on
  if (splits > 1) { // the parts' sums into C, in part order (the same result every run)
    // A team per row of C, as copy_zero_padded: no index division per element.
    using RowPolicy = Kokkos::TeamPolicy<Exec>;
    const std::size_t size = std::size_t(rows) * N;
    Kokkos::parallel_for(
        "miniapp::matmul::tiled_rb", RowPolicy(exec, rows, row_team_size),
        KOKKOS_LAMBDA(const typename RowPolicy::member_type& team) {
          const int r = row_begin + team.league_rank();
          const T* row = partials + std::size_t(team.league_rank()) * N;
          Kokkos::parallel_for(Kokkos::TeamThreadRange(team, N), [&](int c) {
            T sum = row[c];
            for (int p = 1; p < splits; ++p)
              sum += row[p * size + c];
            C(r, c) = sum;
          });
        });
  }
}

} // namespace miniapp::kernels
