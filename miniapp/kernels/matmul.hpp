#pragma once
// matmul family: C = A * B for any M, N, K (row-major).
//   flat      one work item per output element (C++ AMP parallel_for_each / OpenCL matmul_naive)
//   tiled     the classic algorithm: a team per TWxTW output tile, A and B tiles in team scratch
//             (tile_static / __local), team_barrier() after loading and before the next load
//   tiled_rb  larger tiles, each thread keeps a small block of outputs in registers: a pipelined
//             GPU shape, a scratch-free host shape, and a general kernel for user-fixed teams
// Kernels are labelled miniapp::matmul::<variant> for Kokkos Tools.
#include "kernels/launch_limits.hpp"
#include "kernels/matmul_shapes.hpp"

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <type_traits>

// Full unrolling of the fixed-trip loops of the register-blocked kernel, where the device compiler
// understands the pragma (nvcc, hipcc); host compilers unroll by their own heuristics.
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
#define MINIAPP_UNROLL _Pragma("unroll")
#else
#define MINIAPP_UNROLL
#endif

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

// 16 bytes of T: one shared-memory load instruction (LDS.128 on NVIDIA, ds_read_b128 on AMD) for
// 4 floats or 2 doubles of a fragment, instead of 4 or 2 scalar loads.
template <class T>
struct alignas(16) Fragment {
  static constexpr int width = int(16 / sizeof(T));
  T v[width];
};

// `groups` fragments starting at `first`, `step` elements apart, into out[groups * width].
template <int groups, class T>
KOKKOS_INLINE_FUNCTION void fragments(const T* first, int step, T* out) {
  constexpr int V = Fragment<T>::width;
  MINIAPP_UNROLL
  for (int g = 0; g < groups; ++g) {
    const Fragment<T> f = *reinterpret_cast<const Fragment<T>*>(first + g * step);
    MINIAPP_UNROLL
    for (int v = 0; v < V; ++v)
      out[g * V + v] = f.v[v];
  }
}

template <class T, int TWc>
struct RowFragments {
  static constexpr int V = Fragment<T>::width;
  static constexpr bool used = TWc > 0 && TWc % V == 0;
};

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
  Policy probe(exec, league, Kokkos::AUTO);
  probe.set_scratch_size(0, Kokkos::PerTeam(bytes));
  const int ts = fit_team_size(probe, body, TW * TW, team_size, "miniapp::matmul::tiled");
  Policy policy(exec, league, ts);
  policy.set_scratch_size(0, Kokkos::PerTeam(bytes));
  Kokkos::parallel_for("miniapp::matmul::tiled", policy, body);
}

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
  Policy probe(exec, league, Kokkos::AUTO);
  probe.set_scratch_size(level, Kokkos::PerTeam(bytes));
  const int ts = fit_team_size(probe, body, Cfg::threads, team_size, "miniapp::matmul::tiled_rb");
  Policy policy(exec, league, ts);
  policy.set_scratch_size(level, Kokkos::PerTeam(bytes));
  Kokkos::parallel_for("miniapp::matmul::tiled_rb", policy, body);
}

// The GPU shape of tiled_rb: a BM x BN tile per team of (BM/TM) x (BN/TN) threads, each thread a
// TM x TN block of sums in registers for the whole k loop.
//   - two scratch stages: the next k-tile is read from global memory into registers while the
//     current one is multiplied, then stored into the other stage; one barrier per k-tile
//   - fragments: a thread's rows (columns) are TM/V (TN/V) runs of V = 16/sizeof(T) contiguous
//     elements, each read from scratch with one 16-byte load
//   - warp tiling: a warp is a 4 x 8 block of the thread grid, so per k step it reads 4 distinct
//     fragments of A and 8 of B (64 + 128 bytes: each one shared-memory wavefront, the rest
//     broadcast) for TM x TN FMAs per thread
//   - float32 reads global memory 16 bytes at a time where rows allow it (PipelinedLoads): the
//     scalar loads' address arithmetic and spills held it at 59% of cuBLAS SGEMM, 16-byte loads
//     reach 81% (H100, run 11)
//   - LaunchBounds<threads, Teams>: registers capped so that Teams teams share an SM (2: run 6)
// Needs a team of exactly `threads`; any other team size takes matmul_tiled_rb_impl.
template <int BM, int BN, int BK, int TM, int TN>
struct PipelinedBlocking {
  static constexpr int GR = BM / TM, GC = BN / TN; // thread grid
  static constexpr int threads = GR * GC;
  static_assert(GC % 8 == 0 && GR % 4 == 0, "warps are 4 x 8 blocks of the thread grid");
  static_assert(BM * BK % threads == 0 && BK * BN % threads == 0, "whole tiles per load");
};

// How a thread of the pipelined kernel reads its share of a k-tile from global memory: element by
// element (any shape, any alignment), or, with Vec, 16 bytes at a time (one LDG.128 for 4 floats
// or 2 doubles, and one 16-byte scratch store for B) where rows are whole 16-byte runs: K and N
// multiples of V, row strides too, data 16-byte aligned (vector_loads_fit below). Static members,
// not locals: the extended lambda reads them inside `if constexpr`.
// Which element types take 16-byte loads at all: float32 (and int32). With them the float64 shapes
// spill more and ran slower on the H100, 24.4% against 27.9% of cuBLAS DGEMM at 4096 (run 11).
template <class T>
inline constexpr bool vector_loads_for = sizeof(T) == 4;

template <class T, int BM, int BN, int BK, int threads, bool Vec>
struct PipelinedLoads {
  static constexpr int V = Fragment<T>::width;
  static constexpr bool vec = Vec && vector_loads_for<T> && BK % V == 0 && BN % V == 0;
  static constexpr int unit = vec ? V : 1;                                 // elements per load
  static constexpr int a_units = BM * BK / unit, b_units = BK * BN / unit; // per k-tile
  static constexpr int CA = (a_units + threads - 1) / threads;             // loads per thread
  static constexpr int CB = (b_units + threads - 1) / threads;
  // Whether load l of a k-tile exists (the last round of loads may be partial).
  KOKKOS_INLINE_FUNCTION static constexpr bool a_has(int l) {
    return a_units % threads == 0 || l < a_units;
  }
  KOKKOS_INLINE_FUNCTION static constexpr bool b_has(int l) {
    return b_units % threads == 0 || l < b_units;
  }
};

// U elements of X from row r, column c into out: one 16-byte load (Vec, U = 16 / sizeof(T)) or
// one element (U = 1); zeros where `in` is false (past the matrix).
template <bool Vec, int U, class View, class T>
KOKKOS_INLINE_FUNCTION void load_unit(const View& X, const T* ptr, std::size_t ld, int r, int c,
                                      bool in, T* out) {
  if constexpr (Vec) {
    Fragment<T> f = {};
    if (in)
      f = *reinterpret_cast<const Fragment<T>*>(ptr + r * ld + c);
    MINIAPP_UNROLL
    for (int v = 0; v < U; ++v)
      out[v] = f.v[v];
  } else {
    out[0] = in ? X(r, c) : T(0);
  }
}

// U elements from `in` to dst: one 16-byte store (Vec) or one element.
template <bool Vec, int U, class T>
KOKKOS_INLINE_FUNCTION void store_unit(T* dst, const T* in) {
  if constexpr (Vec) {
    Fragment<T> f;
    MINIAPP_UNROLL
    for (int v = 0; v < U; ++v)
      f.v[v] = in[v];
    *reinterpret_cast<Fragment<T>*>(dst) = f;
  } else {
    dst[0] = in[0];
  }
}

template <class T, class VA, class VB>
bool vector_loads_fit(const VA& A, const VB& B) {
  constexpr int V = Fragment<T>::width;
  auto aligned = [](const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; };
  return A.extent(1) % V == 0 && B.extent(1) % V == 0 && A.stride(1) == 1 && B.stride(1) == 1 &&
         A.stride(0) % V == 0 && B.stride(0) % V == 0 && aligned(A.data()) && aligned(B.data());
}

template <int BM, int BN, int BK, int TM, int TN, int Teams, bool Vec, class Exec, class VA,
          class VB, class VC>
void matmul_tiled_rb_pipelined(const Exec& exec, const VA& A, const VB& B, const VC& C) {
  using T = typename VC::non_const_value_type;
  using Cfg = PipelinedBlocking<BM, BN, BK, TM, TN>;
  constexpr int GR = Cfg::GR, GC = Cfg::GC, threads = Cfg::threads;
  constexpr int V = Fragment<T>::width;
  static_assert(TM % V == 0 && TN % V == 0, "whole fragments per thread");
  // A's k-major rows, padded 16 bytes: the transposing stores of one warp fall in distinct banks.
  constexpr int AS = BM + V;
  constexpr int stage = BK * AS + BK * BN; // elements per scratch stage
  using Load = PipelinedLoads<T, BM, BN, BK, threads, Vec>;
  using Policy = Kokkos::TeamPolicy<Exec, Kokkos::LaunchBounds<threads, Teams>>;
  using Member = typename Policy::member_type;
  const int M = C.extent(0), N = C.extent(1), K = A.extent(1);
  const int tiles_n = (N + BN - 1) / BN;
  const int league = ((M + BM - 1) / BM) * tiles_n;
  const std::size_t bytes = 2 * sizeof(T) * std::size_t(stage) + 16; // + alignment slack
  check_scratch<Policy>("miniapp::matmul::tiled_rb", bytes);
  const T* a_ptr = A.data();
  const T* b_ptr = B.data();
  const std::size_t lda = A.stride(0), ldb = B.stride(0);

  auto body = KOKKOS_LAMBDA(const Member& team) {
    T* smem = static_cast<T*>(team.team_scratch(0).get_shmem_aligned(bytes - 16, 16));
    const int row0 = (team.league_rank() / tiles_n) * BM;
    const int col0 = (team.league_rank() % tiles_n) * BN;
    const int rank = team.team_rank(), warp = rank / 32, lane = rank % 32;
    const int ty = (warp / (GC / 8)) * 4 + lane / 8, tx = (warp % (GC / 8)) * 8 + lane % 8;
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
    auto fetch = [&](int k0) {
      constexpr int U = Load::unit, ka = BK / U, nb = BN / U; // loads per row of each tile
      MINIAPP_UNROLL
      for (int q = 0; q < Load::CA; ++q) {
        const int l = rank + q * threads, r = row0 + l / ka, c = k0 + (l % ka) * U;
        const bool in = Load::a_has(l) && r < M && c < K;
        load_unit<Load::vec, U>(A, a_ptr, lda, r, c, in, next_a + q * U);
      }
      MINIAPP_UNROLL
      for (int q = 0; q < Load::CB; ++q) {
        const int l = rank + q * threads, r = k0 + l / nb, c = col0 + (l % nb) * U;
        const bool in = Load::b_has(l) && r < K && c < N;
        load_unit<Load::vec, U>(B, b_ptr, ldb, r, c, in, next_b + q * U);
      }
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
    auto multiply = [&](int s) {
      const T* As = smem + s * stage;
      const T* Bs = As + BK * AS;
      MINIAPP_UNROLL
      for (int kk = 0; kk < BK; ++kk) {
        T a[TM], b[TN];
        fragments<TM / V>(As + kk * AS + ty * V, GR * V, a);
        fragments<TN / V>(Bs + kk * BN + tx * V, GC * V, b);
        MINIAPP_UNROLL
        for (int i = 0; i < TM; ++i) {
          MINIAPP_UNROLL
          for (int j = 0; j < TN; ++j)
            acc[i][j] += a[i] * b[j];
        }
      }
    };

    fetch(0);
    store(0);
    team.team_barrier();
    int s = 0;
    for (int k0 = 0; k0 < K; k0 += BK) {
      const bool more = k0 + BK < K;
      if (more)
        fetch(k0 + BK); // in flight during the multiply
      multiply(s);
      if (more)
        store(s ^ 1); // the stage everyone finished reading before the last barrier
      team.team_barrier();
      s ^= 1;
    }
    MINIAPP_UNROLL
    for (int i = 0; i < TM; ++i) {
      const int r = row0 + (i / V) * GR * V + ty * V + i % V;
      MINIAPP_UNROLL
      for (int j = 0; j < TN; ++j) {
        const int c = col0 + (j / V) * GC * V + tx * V + j % V;
        if (r < M && c < N)
          C(r, c) = acc[i][j];
      }
    }
  };
  Policy policy(exec, league, threads);
  policy.set_scratch_size(0, Kokkos::PerTeam(bytes));
  Kokkos::parallel_for("miniapp::matmul::tiled_rb", policy, body);
}

// The host micro-kernel's vector of sums: a GNU vector (GCC, Clang) of the widest width the
// target ISA has, at most the block's row of TN elements; elsewhere, and in CUDA/HIP translation
// units (whose host tiled_rb runs on Serial, not a performance case), T itself. Why not plain
// loops over T acc[TM][TN]: GCC 12 at -O3 unrolls the i and j loops first, then vectorises the k
// loop as TM x TN reductions, four k at a time with shuffles of A (no ymm FMA at all); vector
// types keep the vectorisation over j and each row of sums in registers.
#if defined(__GNUC__) && !defined(__CUDACC__) && !defined(__HIPCC__)
#if defined(__AVX512F__)
inline constexpr int host_vector_bytes = 64;
#elif defined(__AVX__)
inline constexpr int host_vector_bytes = 32;
#else
inline constexpr int host_vector_bytes = 16;
#endif
template <class T, int Bytes>
struct HostVector {
  typedef T type __attribute__((vector_size(Bytes)));
};
template <class T, int TN>
using host_vector_t =
    typename HostVector<T, (TN * int(sizeof(T)) < host_vector_bytes ? TN * int(sizeof(T))
                                                                    : host_vector_bytes)>::type;
#else
template <class T, int TN>
using host_vector_t = T;
#endif

// Unaligned vector load and store of L contiguous elements (memcpy: the portable spelling, one
// vmovups); plain assignments where the vector is T itself, so CUDA/HIP units call no host-only
// function from the __host__ __device__ lambda.
template <class V, class T>
KOKKOS_INLINE_FUNCTION void host_vector_load(V& v, const T* p) {
  if constexpr (std::is_same_v<V, T>)
    v = *p;
  else
    std::memcpy(&v, p, sizeof(V));
}
template <class V, class T>
KOKKOS_INLINE_FUNCTION void host_vector_store(T* p, const V& v) {
  if constexpr (std::is_same_v<V, T>)
    *p = v;
  else
    std::memcpy(p, &v, sizeof(V));
}

// The host shape of tiled_rb: no scratch. Each thread walks TM x TN blocks of its team's BM x BN
// tile and keeps a block's sums in registers, TM rows of TN / L vectors of L lanes (6 x 16 floats:
// twelve of the sixteen AVX2 registers); per k it broadcasts TM elements of A and loads TN / L
// vectors of B. K is walked in chunks of KC (a block's KC x TN piece of B and TM x KC piece of A
// stay in L1 across the chunk; the tile's KC x BN panel of B in L2 across the block rows); the
// sums go to C after the first chunk and are read back for the next. Rows past the tile or the
// matrix repeat its last row (computed, never stored), so BM need not be a multiple of TM;
// blocks reaching past N take the scalar edge path.
template <int BM, int BN, int TM, int TN, class Exec, class VA, class VB, class VC>
void matmul_tiled_rb_host(const Exec& exec, const VA& A, const VB& B, const VC& C, int team_size) {
  using T = typename VC::non_const_value_type;
  using V = host_vector_t<T, TN>;
  constexpr int L = int(sizeof(V) / sizeof(T)), NV = TN / L;
  static_assert(TN % L == 0, "a block row is whole vectors");
  constexpr int KC = 256;
  using Policy = Kokkos::TeamPolicy<Exec>;
  using Member = typename Policy::member_type;
  constexpr int GR = (BM + TM - 1) / TM, GC = BN / TN, blocks = GR * GC;
  static_assert(BN % TN == 0, "a tile row is whole blocks");
  const int M = C.extent(0), N = C.extent(1), K = A.extent(1);
  const int tiles_n = (N + BN - 1) / BN;
  const int league = ((M + BM - 1) / BM) * tiles_n;
  const std::size_t lda = A.stride(0), ldb = B.stride(0), ldc = C.stride(0);
  const T* a_ptr = A.data();
  const T* b_ptr = B.data();
  T* c_ptr = C.data();

  auto body = KOKKOS_LAMBDA(const Member& team) {
    const int row0 = (team.league_rank() / tiles_n) * BM;
    const int col0 = (team.league_rank() % tiles_n) * BN;
    const int row_end = row0 + BM < M ? row0 + BM : M;
    for (int k0 = 0; k0 < K; k0 += KC) {
      const int k1 = k0 + KC < K ? k0 + KC : K;
      for (int blk = team.team_rank(); blk < blocks; blk += team.team_size()) {
        const int r0 = row0 + (blk / GC) * TM, c0 = col0 + (blk % GC) * TN;
        if (r0 >= row_end || c0 >= N)
          continue;
        if (c0 + TN <= N) { // all TN columns inside: the vector micro-kernel
          const T* a_row[TM];
          T* c_row[TM];
          for (int i = 0; i < TM; ++i) {
            const std::size_t r = std::size_t(r0 + i < row_end ? r0 + i : row_end - 1);
            a_row[i] = a_ptr + r * lda;
            c_row[i] = c_ptr + r * ldc + c0;
          }
          V acc[TM][NV];
          for (int i = 0; i < TM; ++i)
            for (int j = 0; j < NV; ++j)
              if (k0 == 0)
                acc[i][j] = V{};
              else {
                V sums;
                host_vector_load(sums, c_row[i] + j * L);
                acc[i][j] = sums;
              }
          for (int k = k0; k < k1; ++k) {
            V b[NV];
            for (int j = 0; j < NV; ++j)
              host_vector_load(b[j], b_ptr + std::size_t(k) * ldb + c0 + j * L);
            for (int i = 0; i < TM; ++i) {
              const T a = a_row[i][k]; // broadcast by the vector product
              for (int j = 0; j < NV; ++j)
                acc[i][j] += a * b[j];
            }
          }
          for (int i = 0; i < TM && r0 + i < row_end; ++i)
            for (int j = 0; j < NV; ++j) {
              const V sums = acc[i][j]; // a copy: acc's own address never escapes
              host_vector_store(c_row[i] + j * L, sums);
            }
        } else { // edge block: columns past the matrix contribute zeros
          T acc[TM][TN];
          for (int i = 0; i < TM; ++i)
            for (int j = 0; j < TN; ++j)
              acc[i][j] = k0 == 0 || r0 + i >= row_end || c0 + j >= N
                              ? T(0)
                              : c_ptr[std::size_t(r0 + i) * ldc + c0 + j];
          for (int k = k0; k < k1; ++k)
            for (int i = 0; i < TM; ++i) {
              const T a = r0 + i < row_end ? a_ptr[std::size_t(r0 + i) * lda + k] : T(0);
              for (int j = 0; j < TN; ++j)
                acc[i][j] += a * (c0 + j < N ? b_ptr[std::size_t(k) * ldb + c0 + j] : T(0));
            }
          for (int i = 0; i < TM && r0 + i < row_end; ++i)
            for (int j = 0; j < TN && c0 + j < N; ++j)
              c_ptr[std::size_t(r0 + i) * ldc + c0 + j] = acc[i][j];
        }
      }
    }
  };
  Policy probe(exec, league, Kokkos::AUTO);
  const int ts = fit_team_size(probe, body, 1, team_size, "miniapp::matmul::tiled_rb");
  Kokkos::parallel_for("miniapp::matmul::tiled_rb", Policy(exec, league, ts), body);
}

// Tile shapes per backend, element type and tile (64 or 128): kernels/matmul_shapes.hpp names
// them; `shape` picks one ("" = the list's first, its default). GPUs: matmul_tiled_rb_pipelined
// with the shape's thread grid (the general kernel when the user fixes another team size).
// Host: matmul_tiled_rb_host, one thread per team unless the user fixes the team size.
template <class Exec, class VA, class VB, class VC>
void matmul_tiled_rb(const Exec& exec, const VA& A, const VB& B, const VC& C, int tile,
                     int team_size = 0, const std::string& shape = "") {
  using T = typename VC::non_const_value_type;
  using Elem = std::conditional_t<std::is_floating_point_v<T>, T, int>;
  constexpr bool host =
      Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename Exec::memory_space>::accessible;
  bool found = false;
  if constexpr (host) {
    auto run = [&](auto s) {
      using S = decltype(s);
      matmul_tiled_rb_host<S::BM, S::BN, S::TM, S::TN>(exec, A, B, C, team_size);
    };
    found = tile == 64 ? host_shapes_t<Elem, 64>::visit(shape, run)
                       : host_shapes_t<Elem, 128>::visit(shape, run);
  } else if (team_size > 0) {
    // A team size the user chose: the general kernel, which accepts any team (with 256, the
    // GPU kernel of runs 1-5, kept for comparison: docs/performance.md).
    if (tile == 64)
      matmul_tiled_rb_impl<64, 64, 16, 4, 4, true>(exec, A, B, C, team_size);
    else
      matmul_tiled_rb_impl<128, 128, 16, 8, 8, true>(exec, A, B, C, team_size);
    found = true;
  } else {
    const bool vec = vector_loads_for<T> && vector_loads_fit<T>(A, B);
    auto run = [&](auto s) {
      using S = decltype(s);
      if constexpr (vector_loads_for<T>) // (no Vec kernel compiled for the others)
        if (vec)
          return matmul_tiled_rb_pipelined<S::BM, S::BN, S::BK, S::TM, S::TN, S::Teams, true>(
              exec, A, B, C);
      matmul_tiled_rb_pipelined<S::BM, S::BN, S::BK, S::TM, S::TN, S::Teams, false>(exec, A, B, C);
    };
    found = tile == 64 ? gpu_shapes_t<Elem, 64>::visit(shape, run)
                       : gpu_shapes_t<Elem, 128>::visit(shape, run);
  }
  if (!found) // the plan checks shapes against the same lists: a bug if this is reached
    throw std::invalid_argument("miniapp::matmul::tiled_rb: no shape '" + shape + "' for tile " +
                                std::to_string(tile) + " on this backend");
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
