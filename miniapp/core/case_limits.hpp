#pragma once
// The bounds of the case parameters a config may give: part of config/limits.hpp (which includes
// this file, and whose namespace they keep), here so that the case-field table
// (core/case_fields.cpp), below the config layer, holds each parameter's bounds in its row.
#include <cstdint>

namespace miniapp::config::limits {

// A tile side (tile, tile_cols, and `miniapp describe`'s).
constexpr int kMaxTileSide = 1024;
// A matrix dimension (m, n, k): Kokkos views and the kernels index rows and columns with int.
constexpr std::int64_t kMaxDimension = 2147483647;
// Threads per team a config may fix (team_size); the backend's own limit is checked at run time.
constexpr int kMaxTeamSize = 1024;

} // namespace miniapp::config::limits
