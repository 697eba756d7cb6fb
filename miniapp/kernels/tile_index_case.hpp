#pragma once
// The index map of `miniapp describe`, computed on a backend by the tile_index team kernel.
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

namespace miniapp::kernels {

struct IndexMap {
  std::int64_t rows = 0, cols = 0;
  std::vector<int> fields; // rows x cols x 6: global row/col, tile row/col, local row/col
  int at(std::int64_t i, std::int64_t j, int f) const { return fields[(i * cols + j) * 6 + f]; }
};

IndexMap compute_index_map(std::int64_t rows, std::int64_t cols, int tile_rows, int tile_cols,
                           const std::string& backend);
void print_index_map(std::ostream& os, const IndexMap& map, bool colour);

} // namespace miniapp::kernels
