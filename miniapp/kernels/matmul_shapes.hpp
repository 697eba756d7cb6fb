#pragma once
// The tile shapes tiled_rb is compiled for: template choices (BM, BN, BK, TM, TN and, on GPUs, the
// teams per SM its launch bounds ask for) that `shape:` picks by name and `shape: auto` searches
// (run/autotune). One list per backend kind, element type and tile (the tile is BM, 64 or 128);
// the first shape of a list is the default, chosen from measurements (docs/performance.md).
// No Kokkos here: the config, plan and autotuner read the names; kernels/matmul.hpp dispatches.
#include <cstddef>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace miniapp::kernels {

// The main-loop options of a GPU shape (its Mode, a set of these bits; each adds a suffix to the
// name):
//   shape_serpentine (/s): a thread's odd rows of sums run their columns backwards, so that
//     consecutive FMAs share an operand across a change of row too (CUTLASS's SIMT order)
//   shape_prefetch (/p): two sets of fragments; each k step's are read from scratch during the
//     step before, the first of a k-tile after the barrier that ends the one before, during its
//     last step (CUTLASS's SIMT main loop). Needs an even KU.
inline constexpr int shape_serpentine = 1, shape_prefetch = 2;

// GPU (matmul_tiled_rb_pipelined): BM x BN tile per team of (BM/TM) x (BN/TN) threads, BK deep
// k-tiles in two scratch stages, TM x TN sums per thread, LaunchBounds<threads, Teams>. KU: the
// k steps of a k-tile unrolled together (BK: all of them). Fewer let the compiler hoist fewer
// fragment loads ahead of their FMAs, so fewer registers are live at the register cap; the name
// says /uKU only where KU < BK.
template <int BM_, int BN_, int BK_, int TM_, int TN_, int Teams_, int KU_ = BK_, int Mode_ = 0>
struct GpuShape {
  static constexpr int BM = BM_, BN = BN_, BK = BK_, TM = TM_, TN = TN_, Teams = Teams_, KU = KU_;
  static constexpr int Mode = Mode_;
  static_assert(KU > 0 && BK % KU == 0, "whole unrolled groups per k-tile");
  static_assert(!(Mode & shape_prefetch) || KU % 2 == 0, "fragment sets alternate in even groups");
  static std::string name() {
    return std::to_string(BM) + "x" + std::to_string(BN) + "x" + std::to_string(BK) + "/" +
           std::to_string(TM) + "x" + std::to_string(TN) + "/" + std::to_string(Teams) +
           (KU < BK ? "/u" + std::to_string(KU) : "") + (Mode & shape_serpentine ? "/s" : "") +
           (Mode & shape_prefetch ? "/p" : "");
  }
};

// Host (matmul_tiled_rb_host): BM x BN tile per team, TM x TN sums in registers per block.
template <int BM_, int BN_, int TM_, int TN_>
struct HostShape {
  static constexpr int BM = BM_, BN = BN_, TM = TM_, TN = TN_;
  static std::string name() {
    return std::to_string(BM) + "x" + std::to_string(BN) + "/" + std::to_string(TM) + "x" +
           std::to_string(TN);
  }
};

template <class... S>
struct ShapeList {
  static std::vector<std::string> names() { return {S::name()...}; }
  // Calls f(S{}) for the shape named `name` ("" = the first, the default); false if none is.
  template <class F>
  static bool visit(const std::string& name, F&& f) {
    return visit_at(name, f, std::index_sequence_for<S...>{});
  }

private:
  template <class F, std::size_t... I>
  static bool visit_at(const std::string& name, F& f, std::index_sequence<I...>) {
    bool done = false;
    ((done = done || ((name.empty() ? I == 0 : name == S::name()) && (f(S{}), true))), ...);
    return done;
  }
};

// The lists. float32 and float64 carry candidates for the autotuner; int32 (a correctness type,
// not a performance one) is compiled for the default shape only, to keep the CUDA build short.
template <class T, int Tile>
struct GpuShapes;
// Measured on an H100 (run 11, docs/performance.md; % of cuBLAS at 4096 / 8192 in one process).
template <>
struct GpuShapes<float, 128> {
  // H100, % of cuBLAS SGEMM at 4096 / 8192 in one miniapp-bench process (2026-11-27, issue 26;
  // ceilings from the same call's run): 128x128x8/8x8/2/s 94.2% / 94.5%, the same without the
  // serpentine order 89.4% / 90.5% (the default before), /u2/s/p 92.8% / 93.0%; BK=16 with all
  // sixteen k steps unrolled 88.2% / 89.6%, in pairs 85.5% / 85.9%; 128x64 8x4 60.4% / 60.0%.
  // Earlier (whole tiles taking the kernel without bounds tests): BK=16 unrolled by four 79.3%
  // (not listed); with the bounds tests BK=16 spilled 72 bytes and ran at 84%.
  using type =
      ShapeList<GpuShape<128, 128, 8, 8, 8, 2, 8, shape_serpentine>, GpuShape<128, 128, 8, 8, 8, 2>,
                GpuShape<128, 128, 8, 8, 8, 2, 2, shape_serpentine | shape_prefetch>,
                GpuShape<128, 128, 16, 8, 8, 2>, GpuShape<128, 128, 16, 8, 8, 2, 2>,
                GpuShape<128, 64, 8, 8, 4, 2>>;
};
template <>
struct GpuShapes<float, 64> {
  // four teams per SM 55.8% / 57.4% of SGEMM, two 53.7% / 55.0%.
  using type = ShapeList<GpuShape<64, 64, 8, 4, 4, 4>, GpuShape<64, 64, 8, 4, 4, 2>>;
};
template <>
struct GpuShapes<double, 128> {
  // H100, % of cuBLAS DGEMM at 4096 / 8192 in one miniapp-bench process, two processes
  // (2026-11-27, issue 26; ceilings from the same call's run): 128x128 in one 256-thread team per
  // SM, 8x8 sums per thread, the k steps unrolled in pairs: with serpentine order and prefetched
  // fragments (/u2/s/p, 237 registers) 40.7-40.0% / 41.8-41.0%; prefetched only 39.0-39.3% /
  // 39.5-40.6%; serpentine only 38.6-39.1% / 38.9-39.0%; neither (the default before, 220
  // registers) 38.1-38.4% / 37.8-38.1%; one k step at a time 36.1-36.6% / 35.3-35.6%; all eight
  // 31.6-31.8% / 30.1-30.2%. /s/p with groups of four steps 30.9-32.4% (not listed). 128x64 8x8
  // in two 128-thread teams 35.3-35.7% / 37.8-38.1% (pairs), 34.4-34.9% / 36.2-36.3% (one at a
  // time); 4x8 in one 512-thread team 34.8-34.9% / 36.8-36.9%. The DFMA kernels are at the
  // board's power limit: the run of the same call drew 696-726 W (limit 700 W) and read /u2/s/p
  // at 44.5% / 42.2%, its 20 launches timed sooner after the warm-up (docs/performance.md).
  // Not listed: 128x64 8x4 31.4% / 32.6%, BK=16 (more team scratch than the 40 KiB Kokkos 3.4
  // allows), fragments prefetched within a k-tile only (38.2% against 38.5%; an H200).
  using type = ShapeList<GpuShape<128, 128, 8, 8, 8, 1, 2, shape_serpentine | shape_prefetch>,
                         GpuShape<128, 128, 8, 8, 8, 1, 2, shape_prefetch>,
                         GpuShape<128, 128, 8, 8, 8, 1, 2, shape_serpentine>,
                         GpuShape<128, 128, 8, 8, 8, 1, 2>, GpuShape<128, 128, 8, 8, 8, 1, 1>,
                         GpuShape<128, 128, 8, 8, 8, 1>, GpuShape<128, 64, 8, 8, 8, 2, 2>,
                         GpuShape<128, 64, 8, 8, 8, 2, 1>, GpuShape<128, 128, 8, 4, 8, 1, 2>>;
};
template <>
struct GpuShapes<double, 64> {
  // three teams per SM 23.4% / 22.3% of DGEMM, two 22.5% / 21.0%. Not listed: 8x8 sums in four
  // 64-thread teams per SM, 31.3% / 33.9% (BK=8) and 32.0% / 31.8% (BK=16; 2026-11-27).
  using type = ShapeList<GpuShape<64, 64, 8, 4, 4, 3>, GpuShape<64, 64, 8, 4, 4, 2>>;
};
template <int Tile>
struct GpuShapes<int, Tile> {
  using type = ShapeList<GpuShape<Tile, Tile, 8, Tile / 16, Tile / 16, 2>>;
};

// Host: TN is 64 bytes of T (two AVX2 or one AVX-512 vector row of sums per row of the block).
// The default 6 x TN keeps twelve AVX2 vectors of sums, the two of B and the broadcast of A in
// the sixteen registers (the classic AVX2 SGEMM micro-kernel); 4 x TN (eight vectors of sums, the
// shape of runs 6-7) is the autotuner's alternative. 3 x 2TN (twelve of sums and four of B:
// seventeen registers) spilled and ran at a third of 6 x TN on the dev machine; left out.
// With AVX-512 (thirty-two 64-byte registers) a 64-byte row is one register: 6 x TN would keep
// only six sums, too few FMAs in flight to hide their latency. The AVX-512 list leads with rows of
// two registers, twelve of them (24 registers of sums). Measured with A and B packed once per
// product (miniapp-bench, one process, against OpenBLAS as SkylakeX in it): on the GPU machine's
// 16 Xeon cores (2026-11-30, 16 threads) 12 x 2TN read 0.98 / 0.91 of SGEMM at 1024 / 2048 and
// 0.82 / 0.92 of DGEMM, 6 x 2TN 0.93 / 0.84 and 0.70 / 0.83 (the packed-in-the-tile kernel of
// 2026-11-27 gave 12 x 2TN the lead too: 1.07 / 0.80 against 0.94 / 0.73); on the 2-core dev
// machine (AMD EPYC) 12 x 2TN 193-195 GFLOP/s at 2048 against 197-198 for 6 x 2TN, OpenBLAS 210.
// (Before packing, on the dev machine: 6 x 2TN 191 GFLOP/s, 12 x 2TN 126.)
template <class T, int Tile>
struct HostShapes {
  static constexpr int TN = int(64 / sizeof(T));
#if defined(__AVX512F__) && !defined(__CUDACC__) && !defined(__HIPCC__)
  using type = ShapeList<HostShape<Tile, Tile, 12, 2 * TN>, HostShape<Tile, Tile, 6, 2 * TN>,
                         HostShape<Tile, Tile, 6, TN>, HostShape<Tile, Tile, 4, TN>>;
#else
  using type = ShapeList<HostShape<Tile, Tile, 6, TN>, HostShape<Tile, Tile, 4, TN>>;
#endif
};

template <class T, int Tile>
using gpu_shapes_t = typename GpuShapes<T, Tile>::type;
template <class T, int Tile>
using host_shapes_t = typename HostShapes<T, Tile>::type;

// The names for a case: element type by its size and kind (is_float: float32/float64, else int32).
inline std::vector<std::string> tiled_rb_shape_names(bool gpu, bool is_float, std::size_t bytes,
                                                     int tile) {
  auto pick = [&](auto t) {
    using T = decltype(t);
    if (gpu)
      return tile == 64 ? gpu_shapes_t<T, 64>::names() : gpu_shapes_t<T, 128>::names();
    return tile == 64 ? host_shapes_t<T, 64>::names() : host_shapes_t<T, 128>::names();
  };
  if (!is_float)
    return pick(int{});
  return bytes == 8 ? pick(double{}) : pick(float{});
}

} // namespace miniapp::kernels
