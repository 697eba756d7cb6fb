#pragma once
// The transpose family's factory (B = A^T, A is m x n; one rank only). Its row in
// kernels/families.cpp holds its defaults, tile rule and device bytes.
#include "kernels/kernel_case.hpp"

#include <cstdint>
#include <memory>
#include <string>

namespace miniapp::kernels {

// Tile widths the tiled variant accepts (its row in kernels/families.cpp gives the default, 32: a
// warp's row of 4-byte words is then one full 128-byte line). 2 is the smallest tile that
// transposes anything. 64 is the widest: its float32 tile (16.25 KiB with the padding) is half the
// smallest level-0 scratch of any backend (32 KiB on host backends), while its float64 tile (32.5
// KiB) fits CUDA's 40 KiB (Kokkos 3.4) but not the host's: the scratch check refuses that one
// before launch. Wider tiles only cost occupancy.
constexpr int kTransposeTileMin = 2, kTransposeTileMax = 64;

// Builds a transpose case on the backend. block must be the whole matrix (transpose does not
// distribute: a rank's block of A is not a block of B); anything else is UnsupportedCase, as are
// unknown variants and tile widths outside kTransposeTileMin..kTransposeTileMax (transpose.hpp).
// A tile whose scratch the backend cannot give is a ResourceError. All are thrown here, before
// anything is allocated or launched.
std::unique_ptr<KernelCase> make_transpose_case(const Case& c, const std::string& backend,
                                                const Block& block);

} // namespace miniapp::kernels
