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

template <class Exec, class VA, class VB>
void transpose_tiled(const Exec& exec, const VA& A, const VB& B, int tile, int pad,
                     int team_size = 0) {
  using T = typename VB::non_const_value_type;
  using Policy = Kokkos::TeamPolicy<Exec>;
  using Member = typename Policy::member_type;
  const char* label = "miniapp::transpose::tiled";
  const std::int64_t m = A.extent(0), n = A.extent(1);
  const int TS = tile;
  const int S = tile + pad; // the scratch tile's row stride
  const std::int64_t tiles_n = (n + TS - 1) / TS;
  const std::int64_t league = ((m + TS - 1) / TS) * tiles_n;
  if (league > INT_MAX)
    throw LaunchError(std::string(label) + ": " + std::to_string(league) +
                      " tiles, more than a league of " + std::to_string(INT_MAX) +
                      " teams; use a larger tile");
  const int tiles_n32 = int(tiles_n);
  const std::size_t bytes = transpose_tile_bytes<T>(TS, pad);
  check_scratch<Policy>(label, bytes);
  const T* pa = A.data();
  T* pb = B.data();
  auto body = KOKKOS_LAMBDA(const Member& team) {
    // Stride S = T + pad: element (r, c) lives at r * S + c. With pad 1 a column of the tile
    // spans T different banks instead of one (with T = 32 and 4-byte words, an unpadded column
    // read, pad 0, hits the same bank 32 times and serialises the warp).
    T* s = static_cast<T*>(team.team_scratch(0).get_shmem(bytes));
    // 32-bit: the league fits an int (checked above); a 64-bit division and remainder are
    // software routines of a hundred instructions each, paid by every thread of every tile.
    const int tile_row = team.league_rank() / tiles_n32;
    const std::int64_t r0 = std::int64_t(tile_row) * TS;
    const std::int64_t c0 = std::int64_t(team.league_rank() - tile_row * tiles_n32) * TS;
    const int rows = r0 + TS <= m ? TS : int(m - r0); // edge tiles hold fewer rows / columns
    const int cols = c0 + TS <= n ? TS : int(n - c0);
    // Threads as a grid over the tile: tx the column (consecutive team ranks, consecutive
    // addresses: coalesced), ty the first row, sy rows apart; divided once per thread, not per
    // element. A team narrower than a row (one thread on host backends) walks each row cx
    // columns at a time.
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
  };
  // GPUs: kTransposeTeamThreads threads per tile, each moving T*T/128 elements (16 at T = 32,
  // so the fixed cost of a thread is shared by more elements than with the usual 256); fewer
  // when the tile has fewer elements. Host backends: one thread per team, so each
  // thread transposes whole tiles through its cache-sized scratch with no barrier waits.
  constexpr bool host =
      Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename Exec::memory_space>::accessible;
  const int wanted = host ? 1 : (TS * TS < kTransposeTeamThreads ? TS * TS : kTransposeTeamThreads);
  launch_with_scratch<Policy>(label, exec, int(league), body, wanted, team_size, bytes);
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
