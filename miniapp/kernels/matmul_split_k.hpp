#pragma once
// Split-K for tiled_rb's GPU kernel (matmul_tiled_rb_gpu.hpp): how many parts K is split into for
// a product's size and device, and the choice of the whole launch (split-K, padded operands) as
// the result row records it.
#include "core/result.hpp"

#include <cstdint>

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
// One team a multiprocessor (float64): a last wave takes a whole tile's time however few teams it
// holds, so the parts are those that make the fewest tile-times, ceil(tiles x parts / sms) /
// parts, where that is at least a tenth fewer than unsplit (the parts' sums cost a few percent).
// H200, 2026-11-30: float64 5000x2100x3500 (680 tiles, 6 waves, the last 20 teams) read 35.1% of
// DGEMM against 43.9% at 4992x2048x3456 (624 tiles, 5 waves); 2049x3000x4097 (408 tiles, 4 waves)
// 37.9% against 42.9%. Two teams a multiprocessor (float32): the rule above, measured; a last wave
// of at most one team a multiprocessor runs each team alone, faster, so the count of waves
// overstates what splitting gains there (5003: 7 waves against 6.25 in 4 parts, 80.2% against
// 78.3%).
inline constexpr int split_k_depth = 64;
inline int split_k_for_waves(int tiles, int deepest, int slots) {
  const auto waves = [&](int parts) { return (std::int64_t(tiles) * parts + slots - 1) / slots; };
  int best = 1; // compared as waves(p) / p against waves(best) / best
  for (int parts = 2; parts <= 4 && parts <= deepest; ++parts)
    if (waves(parts) * best < waves(best) * parts)
      best = parts;
  return 10 * waves(best) <= 9 * waves(1) * best ? best : 1; // at least a tenth fewer
}
inline int split_k_for(int tiles, int K, int sms, int teams) {
  const int deepest = K / split_k_depth;
  if (tiles <= 0 || deepest < 2)
    return 1;
  int parts = 1;
  if (2 * tiles <= sms)
    parts = sms / tiles;
  else if (teams <= 1)
    parts = split_k_for_waves(tiles, deepest, sms);
  else if (const int slots = sms * teams; tiles > slots && tiles - slots <= slots / 4)
    parts = 4;
  return parts < deepest ? parts : deepest;
}

// The tail of a product whose tiles fill some whole waves of teams and a last one only in part:
// the rows of tiles that fit in the whole waves (the head) run as one launch over all of K, the
// rows after them (the tail) as a second launch that splits K into the parts (2 to 8, each at
// least split_k_tail_depth deep) that make the fewest waves of a part's depth, where the two
// launches' waves, ceil(head / slots) + ceil(tail x parts / slots) / parts, are fewer than the
// product's unsplit by at least a tenth with two teams a multiprocessor or more (float32), a
// twentieth with one (float64, whose last wave costs a whole tile's time as counted: see above).
// float64 on the H200 (2026-11-30, the same config before -> after, TFLOP/s): 2500 (tail split
// before the whole product's 4 parts) 18.6 -> 20.6, 2049x3000x4097 19.0 -> 20.2, 5000 20.6 -> 21.7,
// 4100 19.9 -> 21.6, 5000x2100x3500 20.0 -> 20.8.
// Why: a last wave of more teams than multiprocessors lasts a whole tile's time however few it
// holds, and split-K over the whole product overstated the gain (5003 above: the head splits
// too). H200, 2026-11-30, TFLOP/s before -> after in two runs of the same configs (% of cuBLAS
// SGEMM of the same shape in the same run): 2049x3000x4097 (408 tiles for 264 slots: 11 rows
// whole, 144 tiles in 7 parts) 34.3 -> 40.3 (80.5% -> 93.5%); 5000x2100x3500 (31 rows, 153 tiles
// in 5) 39.1 -> 43.3 (95.1% -> 104.9%); 4097 (32 rows, a row of 33 tiles in 8) 42.2 -> 45.4;
// 3072 (22 rows, 48 tiles in 5) 43.4 -> 48.5; 2560 (13 rows, 140 in 7) 38.3 -> 44.0. The tail
// compared with itself unsplit took 3500 (18 rows, then 280 tiles in 8: 3.125 waves against 3
// unsplit) from 45.3 to 41.7, hence the whole product's waves (99.5% of SGEMM again). The gains
// measured were about 60% of the waves': a last wave of one team a multiprocessor runs each team
// alone, faster. Stream-K proper (every team an equal share of all tiles' k-tiles) would need no
// head.
inline constexpr int split_k_tail_depth = 4 * split_k_depth;
struct TailSplit {
  int head_tile_rows = 0; // 0: no tail split
  int parts = 1;
};
inline TailSplit split_k_tail(int tiles_m, int tiles_n, int K, int sms, int teams) {
  const std::int64_t slots = std::int64_t(sms) * teams, tiles = std::int64_t(tiles_m) * tiles_n;
  if (teams < 1 || tiles_n <= 0 || tiles <= slots || tiles % slots == 0)
    return {};
  const int head = int(tiles / slots * slots / tiles_n);
  const std::int64_t head_tiles = std::int64_t(head) * tiles_n, tail = tiles - head_tiles;
  const auto waves = [&](std::int64_t n) { return (n + slots - 1) / slots; };
  int best = 1; // the fewest waves of a part's depth: waves(tail * p) / p
  for (int parts = 2; parts <= 8 && parts <= K / split_k_tail_depth; ++parts)
    if (waves(tail * parts) * best < waves(tail * best) * parts)
      best = parts;
  // In waves of a whole tile's depth, times best: head and tail against the product unsplit
  const std::int64_t split = waves(head_tiles) * best + waves(tail * best);
  const int fewer = teams >= 2 ? 10 : 20; // at least 1 / fewer less
  if (head == 0 || best == 1 || fewer * split > (fewer - 1) * waves(tiles) * best)
    return {};
  return {head, best};
}

// The depth of each of `parts` parts of K: whole bk-deep k-tiles (K itself for one part).
inline int split_k_chunk(int parts, int K, int bk) {
  return parts > 1 ? (K + parts * bk - 1) / (parts * bk) * bk : K;
}
// The parts that run for `parts` asked: chunks of split_k_chunk, none empty (1 where K is 0).
inline int split_k_parts(int parts, int K, int bk) {
  if (parts <= 1 || K <= 0)
    return 1;
  const int chunk = split_k_chunk(parts, K, bk);
  return (K + chunk - 1) / chunk;
}

// Whether M x K and K x N operands are whole bm x bk and bk x bn tiles (the kernel's `Full` form).
inline bool whole_tiles(std::int64_t M, std::int64_t N, std::int64_t K, int bm, int bn, int bk) {
  return M % bm == 0 && N % bn == 0 && K % bk == 0;
}

// The GPU kernel's choice for an M x N x K product (C is M x N), shape tiles bm x bn x bk with
// `teams` teams a multiprocessor, on `sms` multiprocessors. vec_width > 0: the type reads 16
// bytes (vec_width elements) at a time, and contiguous operands that are not whole tiles, or whose
// K or N is not whole 16-byte runs, are padded (matmul_padded.hpp), K then to whole k-tiles.
// matmul_tiled_rb runs this choice, so the value recorded is the one that ran (save where the
// workspace cannot be allocated: then unpadded, or one part, and the launch says so). Where only
// the tail splits (split_k_tail), split_k is the tail's parts and *head_rows (if given) the rows
// of C before it; else *head_rows is 0. With one team a multiprocessor the tail's split comes
// first: it adds the sums of the tail's parts only, where splitting the whole product adds every
// tile's.
inline LaunchChoice tiled_rb_gpu_choice(std::int64_t M, std::int64_t N, std::int64_t K, int bm,
                                        int bn, int bk, int teams, int vec_width, int sms,
                                        int* head_rows = nullptr) {
  LaunchChoice c;
  c.padded = vec_width > 0 &&
             (!whole_tiles(M, N, K, bm, bn, bk) || K % vec_width != 0 || N % vec_width != 0);
  const std::int64_t k = c.padded ? (K + bk - 1) / bk * bk : K;
  const int tiles_m = int((M + bm - 1) / bm), tiles_n = int((N + bn - 1) / bn);
  int parts = split_k_for(tiles_m * tiles_n, int(k), sms, teams);
  const TailSplit tail = split_k_tail(tiles_m, tiles_n, int(k), sms, teams);
  const bool split_tail = tail.head_tile_rows > 0 && (teams <= 1 || parts == 1);
  if (split_tail)
    parts = tail.parts;
  c.split_k = split_k_parts(parts, int(k), bk);
  if (head_rows)
    *head_rows = split_tail ? tail.head_tile_rows * bm : 0;
  return c;
}

} // namespace miniapp::kernels
