#pragma once
// transpose family: B = A^T, A is m x n and B is n x m, both row-major.
//   flat   one work item per output element (1D range over B's storage)
//   tiled  the classic scratch-pad transpose: a team per T x T tile of A, loaded into team scratch
//          with coalesced reads, a barrier, written out transposed with coalesced writes; the
//          scratch tile is T x (T + pad) (pad 1, one column of padding, keeps a column of the tile
//          off a single shared-memory bank)
// Both move values and compute nothing, so the host check below is exact.
#include "kernels/transpose_case.hpp" // kTransposeTileMin/Max
#include "kernels/case_support.hpp"
#include "kernels/launch_limits.hpp"

#include <Kokkos_Core.hpp>

#include <climits>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace miniapp::kernels {

// Rows of A each thread of the tiled kernel loads before storing any of them to scratch.
inline constexpr int kTransposeLoadsInFlight = 4;
// Threads of a GPU team of the tiled kernel (4 warps).
inline constexpr int kTransposeTeamThreads = 128;

// Scratch bytes of one T x (T + pad) tile of elements of type T.
template <class T>
std::size_t transpose_tile_bytes(int tile, int pad) {
  return sizeof(T) * std::size_t(tile) * std::size_t(tile + pad);
}

template <class Exec, class VA, class VB>
void transpose_flat(const Exec& exec, const VA& A, const VB& B) {
  // A 1D range over B's contiguous storage: neighbouring work items write neighbouring addresses
  // (coalesced writes on GPUs) and read A down a column (strided reads). Reads that miss only
  // cost the lines they fetch, and the next items reuse those lines from cache; scattered writes
  // would make every warp store 32 partial sectors instead. A 2D MDRange is not used: Kokkos 3.4's
  // CUDA MDRange puts threadIdx.x on the first index whatever the iteration order, so a warp would
  // walk B down a column (see axpby_mdrange).
  const auto* pa = A.data();
  auto* pb = B.data();
  const std::int64_t m = A.extent(0), n = A.extent(1);
  Kokkos::parallel_for(
      "miniapp::transpose::flat",
      Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>(exec, 0, m * n),
      KOKKOS_LAMBDA(const std::int64_t o) {
        const std::int64_t i = o / m, j = o % m; // B(i, j) = A(j, i)
        pb[o] = pa[j * n + i];
      });
}

// Any tile, any team: the tile at (r0, c0) of A (rows x cols of it, fewer than T at the edges)
// through the T x (T + pad) scratch tile s, row stride S = T + pad, into B. Threads as a grid over
// the tile: tx the column (consecutive team ranks, consecutive addresses: coalesced), ty the first
// row, sy rows apart. A team narrower than a row (one thread on host backends) walks each row cx
// columns at a time.
template <class T, class Member>
KOKKOS_INLINE_FUNCTION void
transpose_any_tile(const Member& team, T* s, const T* pa, T* pb, std::int64_t m, std::int64_t n,
                   int TS, int S, std::int64_t r0, std::int64_t c0, int rows, int cols) {
  const int cx = team.team_size() < TS ? team.team_size() : TS;
  const int tx = team.team_rank() % cx, ty = team.team_rank() / cx;
  const int sy = team.team_size() / cx; // threads past sy * cx rows (ty >= sy) stay idle
  // Load: kTransposeLoadsInFlight rows of A per thread are read into registers before any is
  // stored to scratch, so that many loads per thread are in flight at once (the compiler does
  // not move a load above a scratch store that might alias it).
  constexpr int U = kTransposeLoadsInFlight;
  if (ty < sy)
    for (int r = ty; r < rows; r += U * sy)
      for (int c = tx; c < cols; c += cx) {
        T v[U];
        for (int u = 0; u < U; ++u)
          if (r + u * sy < rows)
            v[u] = pa[(r0 + r + u * sy) * n + c0 + c];
        for (int u = 0; u < U; ++u)
          if (r + u * sy < rows)
            s[(r + u * sy) * S + c] = v[u];
      }
  team.team_barrier(); // the whole tile is in scratch before anyone reads another's element
  // Store: row r of B's tile (B(c0 + r, r0 + c) = A(r0 + c, c0 + r)) is column r of the
  // scratch tile; consecutive team ranks take consecutive columns of B (coalesced writes; the
  // padding keeps the scratch reads apart).
  if (ty < sy)
    for (int r = ty; r < cols; r += sy) {
      T* b = pb + (c0 + r) * m + r0;
      for (int c = tx; c < rows; c += cx)
        b[c] = s[c * S + r];
    }
}

// GPU tile widths compiled with their thread grid (TS columns x R rows of threads, R = 2, 4 or 8):
// a full tile then moves with no bounds tests, no divisions and fully unrolled loops, each
// thread's elements one constant stride apart. Profiled at 4096 (float32, tile 32), the run-time
// grid above costs 79 instructions an element, a third of them per-team index set-up and
// division, the rest 64-bit addresses and bounds tests per element: issue-bound where a
// transpose should be memory-bound. The default R: kTransposeFixedRows (docs/performance.md).
template <int TS>
inline constexpr int kTransposeFixedRows = TS >= 64 ? 4 : kTransposeTeamThreads / TS;

// A full TS x TS tile by a team of exactly TS * R threads: each thread loads its TS / R elements
// of A (all in flight before any scratch store), and after the barrier reads its column of the
// scratch tile into registers before writing B's row.
template <int TS, int R, class T, class Member>
KOKKOS_INLINE_FUNCTION void transpose_full_tile(const Member& team, T* s, const T* pa, T* pb,
                                                std::int64_t m, std::int64_t n, std::int64_t r0,
                                                std::int64_t c0) {
  constexpr int K = TS / R;
  const int tx = team.team_rank() % TS, ty = team.team_rank() / TS; // shifts: TS is constant
  const T* a = pa + (r0 + ty) * n + c0 + tx;
  const std::int64_t a_step = R * n;
  T v[K];
  for (int k = 0; k < K; ++k)
    v[k] = a[k * a_step];
  for (int k = 0; k < K; ++k)
    s[(ty + k * R) * (TS + 1) + tx] = v[k];
  team.team_barrier();
  for (int k = 0; k < K; ++k)
    v[k] = s[tx * (TS + 1) + ty + k * R];
  T* b = pb + (c0 + ty) * m + r0 + tx;
  const std::int64_t b_step = R * m;
  for (int k = 0; k < K; ++k)
    b[k * b_step] = v[k];
}

// Two neighbouring elements of a row, loaded and stored as one word of twice their size.
template <class T>
struct alignas(2 * sizeof(T)) TransposePair {
  T x, y;
};

// The compiled tile widths and element types that take transpose_full_tile_pairs (a namespace
// constant, not a local: nvcc's extended lambdas cannot capture one inside if constexpr).
template <int TS, class T>
inline constexpr bool kTransposePairTile = TS == 64 && sizeof(T) == 4;

// A full 64 x 64 tile of 4-byte elements by a team of 64 * R threads, moved as 32 x 32 blocks of
// 2 x 2 elements: a warp reads and writes 256 contiguous bytes of a row with 8-byte accesses, the
// memory pattern of the 8-byte tile 32, which reaches 96-97% of copy where 4-byte tile 64 reaches
// 94% (8192, H100). Lane tx (0-31) of row ty (2R rows of lanes) loads columns 2tx, 2tx + 1 of rows
// 2i, 2i + 1 of A (pair-row i), swaps the 2 x 2 block in registers and stores it to scratch as
// two words: row i of the scratch tile holds B's even rows' pairs, then its odd rows', then one
// pair of padding (row stride S = 65 pairs, the 64 x 65 elements of the padded 4-byte tile).
// A half-warp's 8-byte scratch accesses then cover the 32 banks once, on both sides of the
// barrier. The caller checks that both row lengths are even and both matrices 8-byte aligned.
template <int R, class T, class Member>
KOKKOS_INLINE_FUNCTION void transpose_full_tile_pairs(const Member& team, T* s, const T* pa, T* pb,
                                                      std::int64_t m, std::int64_t n,
                                                      std::int64_t r0, std::int64_t c0) {
  static_assert(sizeof(T) == 4, "the pair path moves 4-byte elements as 8-byte words");
  using P = TransposePair<T>;
  constexpr int L = 32;     // lanes: the pairs of a 64-element row
  constexpr int PR = 2 * R; // rows of lanes
  constexpr int S = 2 * L + 1;
  constexpr int K = L / PR; // pair-rows per thread
  const int tx = team.team_rank() % L, ty = team.team_rank() / L;
  P* sp = reinterpret_cast<P*>(s);
  // Pair-row i = ty + k * PR: A's rows r0 + 2i and r0 + 2i + 1, k * PR * n pairs apart.
  const P* a = reinterpret_cast<const P*>(pa + (r0 + 2 * ty) * n + c0) + tx;
  const std::int64_t a_half = n / 2; // pairs in a row of A
  P top[K], bottom[K];
  for (int k = 0; k < K; ++k) {
    top[k] = a[k * PR * n];
    bottom[k] = a[k * PR * n + a_half];
  }
  for (int k = 0; k < K; ++k) {
    P* row = sp + (ty + k * PR) * S;
    row[tx] = P{top[k].x, bottom[k].x};     // B(c0 + 2tx, r0 + 2i .. 2i + 1)
    row[L + tx] = P{top[k].y, bottom[k].y}; // B(c0 + 2tx + 1, r0 + 2i .. 2i + 1)
  }
  team.team_barrier();
  // Row q = ty + k * PR of B's tile (even or odd with ty, as PR is even) is pair j = q / 2 of
  // half q % 2 in every scratch row; lane tx takes scratch row tx: B(c0 + q, r0 + 2tx .. 2tx + 1).
  constexpr int KB = 2 * K; // B rows per thread
  P v[KB];
  const P* col = sp + tx * S + (ty % 2) * L + ty / 2;
  for (int k = 0; k < KB; ++k)
    v[k] = col[k * R];
  P* b = reinterpret_cast<P*>(pb + (c0 + ty) * m + r0) + tx;
  for (int k = 0; k < KB; ++k)
    b[k * PR * (m / 2)] = v[k];
}

// The tiled kernel with the tile width a run-time value (FixedTS = 0) or a compile-time one with
// FixedR rows of threads: the latter takes transpose_full_tile for full tiles when the team has
// that grid, and transpose_any_tile for edge tiles (and a team the backend made smaller).
template <int FixedTS, int FixedR, class Exec, class T>
void transpose_tiled_launch(const Exec& exec, const T* pa, T* pb, std::int64_t m, std::int64_t n,
                            int tile, int pad, int wanted, int team_size) {
  using Policy = Kokkos::TeamPolicy<Exec>;
  using Member = typename Policy::member_type;
  const char* label = "miniapp::transpose::tiled";
  const int TS = FixedTS > 0 ? FixedTS : tile;
  const std::int64_t tiles_n = (n + TS - 1) / TS;
  const std::int64_t league = ((m + TS - 1) / TS) * tiles_n;
  if (league > INT_MAX)
    throw LaunchError(std::string(label) + ": " + std::to_string(league) +
                      " tiles, more than a league of " + std::to_string(INT_MAX) +
                      " teams; use a larger tile");
  const int tiles_n32 = int(tiles_n);
  // Full 4-byte tiles of width 64 move as 2 x 2 blocks where rows of even length and 8-byte
  // aligned matrices allow 8-byte accesses (transpose_full_tile_pairs).
  constexpr std::uintptr_t pair_align = alignof(TransposePair<T>);
  const bool pairs = kTransposePairTile<FixedTS, T> && m % 2 == 0 && n % 2 == 0 &&
                     reinterpret_cast<std::uintptr_t>(pa) % pair_align == 0 &&
                     reinterpret_cast<std::uintptr_t>(pb) % pair_align == 0;
  const std::size_t bytes = transpose_tile_bytes<T>(TS, pad);
  check_scratch<Policy>(label, bytes);
  auto body = KOKKOS_LAMBDA(const Member& team) {
    // Stride S = T + pad: element (r, c) lives at r * S + c. With pad 1 a column of the tile
    // spans T different banks instead of one (with T = 32 and 4-byte words, an unpadded column
    // read, pad 0, hits the same bank 32 times and serialises the warp).
    T* s = static_cast<T*>(team.team_scratch(0).get_shmem(bytes));
    // Captured here: nvcc's extended lambdas cannot first capture a variable inside if constexpr.
    const T* a = pa;
    T* b = pb;
    const bool use_pairs = pairs;
    const int stride = TS + pad; // the scratch tile's row stride
    // 32-bit: the league fits an int (checked above); a 64-bit division and remainder are
    // software routines of a hundred instructions each, paid by every thread of every tile.
    const int tile_row = team.league_rank() / tiles_n32;
    const std::int64_t r0 = std::int64_t(tile_row) * TS;
    const std::int64_t c0 = std::int64_t(team.league_rank() - tile_row * tiles_n32) * TS;
    const int rows = r0 + TS <= m ? TS : int(m - r0); // edge tiles hold fewer rows / columns
    const int cols = c0 + TS <= n ? TS : int(n - c0);
    if constexpr (FixedTS > 0) { // the compiled grid's stride is T + 1: the default pad only
      if (stride == FixedTS + 1 && rows == FixedTS && cols == FixedTS &&
          team.team_size() == FixedTS * FixedR) {
        if constexpr (kTransposePairTile<FixedTS, T>)
          if (use_pairs) {
            transpose_full_tile_pairs<FixedR>(team, s, a, b, m, n, r0, c0);
            return;
          }
        transpose_full_tile<FixedTS, FixedR>(team, s, a, b, m, n, r0, c0);
        return;
      }
    }
    transpose_any_tile(team, s, a, b, m, n, TS, stride, r0, c0, rows, cols);
  };
  launch_with_scratch<Policy>(label, exec, int(league), body, wanted, team_size, bytes);
}

// A compiled tile width TS on a GPU: the grid of R = 2, 4 or 8 rows of threads the team size
// asks for (0: kTransposeFixedRows<TS>); any other team size, the run-time grid.
template <int TS, class Exec, class T>
void transpose_tiled_fixed(const Exec& exec, const T* pa, T* pb, std::int64_t m, std::int64_t n,
                           int pad, int team_size) {
  const int rows = team_size > 0 && team_size % TS == 0 ? team_size / TS
                   : team_size > 0                      ? 0
                                                        : kTransposeFixedRows<TS>;
  const int ts = TS * rows;
  switch (rows) {
  case 2:
    return transpose_tiled_launch<TS, 2>(exec, pa, pb, m, n, TS, pad, ts, team_size);
  case 4:
    return transpose_tiled_launch<TS, 4>(exec, pa, pb, m, n, TS, pad, ts, team_size);
  case 8:
    return transpose_tiled_launch<TS, 8>(exec, pa, pb, m, n, TS, pad, ts, team_size);
  default:
    return transpose_tiled_launch<0, 0>(exec, pa, pb, m, n, TS, pad, kTransposeTeamThreads,
                                        team_size);
  }
}

template <class Exec, class VA, class VB>
void transpose_tiled(const Exec& exec, const VA& A, const VB& B, int tile, int pad,
                     int team_size = 0) {
  using T = typename VB::non_const_value_type;
  const std::int64_t m = A.extent(0), n = A.extent(1);
  const T* pa = A.data();
  T* pb = B.data();
  // GPUs: tile widths 16, 32 and 64 take a compiled thread grid (by default 128, 128 and 256
  // threads: 2, 8 and 16 elements a thread; transpose_tiled_fixed); other widths
  // kTransposeTeamThreads threads per tile, fewer when the tile has fewer elements.
  // Host backends: one thread per team, so each thread transposes whole tiles through its
  // cache-sized scratch with no barrier waits.
  constexpr bool host =
      Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename Exec::memory_space>::accessible;
  if constexpr (!host) {
    switch (tile) {
    case 16:
      return transpose_tiled_fixed<16>(exec, pa, pb, m, n, pad, team_size);
    case 32:
      return transpose_tiled_fixed<32>(exec, pa, pb, m, n, pad, team_size);
    case 64:
      return transpose_tiled_fixed<64>(exec, pa, pb, m, n, pad, team_size);
    default:
      break;
    }
  }
  const int wanted =
      host ? 1 : (tile * tile < kTransposeTeamThreads ? tile * tile : kTransposeTeamThreads);
  transpose_tiled_launch<0, 0>(exec, pa, pb, m, n, tile, pad, wanted, team_size);
}

// The exact host check: B must be A^T element for element (a transpose computes nothing, so any
// difference, and the poison value, is a bad element). Messages give B's indices.
template <class T>
Validation validate_transpose(const HostMatrix<T>& A, const HostMatrix<T>& B) {
  const std::int64_t m = A.extent(0), n = A.extent(1);
  if (std::int64_t(B.extent(0)) != n || std::int64_t(B.extent(1)) != m)
    throw std::invalid_argument("validate_transpose: B is not n x m");
  std::vector<double> ref(std::size_t(m * n)), scale(ref.size());
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t j = 0; j < m; ++j) {
      ref[std::size_t(i * m + j)] = double(A(j, i));
      scale[std::size_t(i * m + j)] = std::fabs(double(A(j, i))); // max_error: relative error
    }
  return compare(B, ref, scale, 0.0);
}

} // namespace miniapp::kernels
