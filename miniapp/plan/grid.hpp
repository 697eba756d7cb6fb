#pragma once
// The 2D block distribution (no MPI here: plain arithmetic, used by the plan to check a case
// and by the distributed runner to build each rank's blocks).
//
// P x Q process grid, rank r sits at (r / Q, r % Q). Each matrix dimension is cut into contiguous
// blocks, as even as possible (the first ones take the remainder). Blocks are counted in units:
// 1 element for matmul and axpby, one S-wide tile for tile_average, so no tile straddles two
// ranks and each rank computes exactly the tile averages a single rank would.
#include "core/case.hpp"

#include <cstdint>
#include <string>

namespace miniapp::parallel {

struct GridShape {
  int p = 1, q = 1; // process rows, process columns
  // 64-bit: mpi.grid sides may each be up to 2^20, and a product wrapped to 32 bits could equal
  // the real rank count (a 20857 x 823698 grid "is" 2 ranks in int arithmetic).
  std::int64_t ranks() const { return std::int64_t(p) * std::int64_t(q); }
  // Whether SUMMA's panels have receivers: A panels travel along a process row, B panels along a
  // process column; on a grid of one column (row) nobody receives them, so they are neither
  // staged nor broadcast (parallel/summa.hpp) and cost nothing in its model.
  bool a_panels_travel() const { return q > 1; }
  bool b_panels_travel() const { return p > 1; }
};

// The most square grid with p <= q and p * q == ranks (2 -> 1x2, 4 -> 2x2, 6 -> 2x3, 7 -> 1x7).
GridShape choose_grid(int ranks);

struct Range {
  std::int64_t begin = 0, size = 0;
  std::int64_t end() const { return begin + size; }
};

// Part `part` of n elements cut into `parts` blocks in whole units of `unit` (the last unit of the
// dimension may be short). Needs ceil(n / unit) >= parts.
Range block_range(std::int64_t n, std::int64_t unit, int parts, int part);
// The part that holds element i (constant time: it is called for every element).
int block_owner(std::int64_t n, std::int64_t unit, int parts, std::int64_t i);

// What one rank of the grid holds for a case.
//   matmul        C rows x cols; A rows x inner_a (k cut over the Q process columns);
//                 B inner_b x cols (k cut over the P process rows)
//   axpby         A, B, R: rows x cols
//   tile_average  X: rows x cols (whole tiles), its averages: ceil(rows/S) x ceil(cols/S)
struct RankBlocks {
  Range rows, cols, inner_a, inner_b;
};
RankBlocks rank_blocks(const Case& c, GridShape g, int grid_row, int grid_col);

// "" when every rank gets at least one unit of every distributed dimension, else why not
// (the caller turns it into a config error at the size's position). `dimension` names the key.
std::string check_fits(const Case& c, GridShape g, std::string* dimension = nullptr);

// SUMMA panel width when the config says auto (mpi.panel absent or 0).
constexpr int kDefaultPanel = 256;
int panel_width(int configured);

// Device bytes of the largest rank's share (rank (0, 0) holds the largest blocks), SUMMA panels
// and the partial product included.
std::uint64_t rank_case_bytes(const Case& c, GridShape g, int panel);

} // namespace miniapp::parallel
