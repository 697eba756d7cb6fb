#pragma once
// Split-K for tiled_rb's GPU kernel (matmul_tiled_rb_gpu.hpp): how many parts K is split into for
// a product's size and device.
namespace miniapp::kernels {

// The parts K is split into (split-K) for `tiles` output tiles on `sms` multiprocessors, each
// holding `teams` teams at once, each part at least split_k_depth deep. Measured on an H200
// (2026-11-29, % of cuBLAS SGEMM, parts' sums stored and added by a second launch):
//   - tiles filling at most half the multiprocessors: parts enough for one team a
//     multiprocessor. float32 1024 (64 tiles): 2 parts 80.9%, 4 (two teams an SM) 78.4%; 512:
//     8 parts 76.3%, 4 70.2%; float64 1024: 2 parts 36.3% of DGEMM, 4 33.3%
//   - a last wave of teams at most a quarter full after one whole wave (2049: 289 tiles for 264
//     slots): 4 parts, 73.7% against 59.0% unsplit (2 parts 67.5%). With more waves splitting
//     did not pay: 4096 (1024 tiles) 95.0% unsplit, 90.4% / 89.9% in 2 / 4 parts; 5003 (1600
//     tiles) 78.3% unsplit, 80.2% in 4
// Before (parts added into C with atomic adds, enough to fill both teams of every SM): 1024
// 59.1%, 512 53.4%, float64 1024 31.7%.
inline constexpr int split_k_depth = 64;
inline int split_k_for(int tiles, int K, int sms, int teams) {
  const int deepest = K / split_k_depth;
  if (tiles <= 0 || deepest < 2)
    return 1;
  int parts = 1;
  if (2 * tiles <= sms)
    parts = sms / tiles;
  else if (const int slots = sms * teams; tiles > slots && tiles - slots <= slots / 4)
    parts = 4;
  return parts < deepest ? parts : deepest;
}

} // namespace miniapp::kernels
