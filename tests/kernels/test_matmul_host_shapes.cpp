// Every host shape of tiled_rb (kernels/matmul_shapes.hpp), not only the default the family
// tests run: each element type, both tiles, sizes that leave edge blocks in M and N, a tile
// height that is not a multiple of TM, and K over several of the host kernel's K chunks (the
// sums go to C and come back between chunks). The host kernels pack A and B into zero-padded
// panels per K chunk (once for the product where it has several tiles, else in the team): sizes
// below put a partial vector in the last column block, fewer rows than TM, K at, just past and one
// short of a chunk, operands with leading dimensions wider than the matrix (subviews), and teams of
// several threads that pack together. Small integer inputs keep every sum exact in float32, so the
// result must equal the integer reference exactly.
#include "kernels/matmul.hpp"

#include <Kokkos_Core.hpp>
#include <gtest/gtest.h>

#include <utility>
#include <cstdint>
#include <string>
#include <vector>

namespace miniapp::kernels {
namespace {

struct Product {
  int m, n, k;
};
// The first m x n of a matrix `pad` columns wider than n (pad = 0: the matrix itself).
template <class Matrix>
auto leading(const Matrix& wide, int m, int n) {
  return Kokkos::subview(wide, std::make_pair(0, m), std::make_pair(0, n));
}

// Which host kernel runs: matmul_tiled_rb's choice (the shared panels wherever there are two
// tiles or more), or the team-packed kernel it falls back to where the shared panels' workspace
// cannot be allocated, run directly.
enum class HostKernel { chosen, team_packed };

template <class T>
void expect_every_shape_exact(int tile, const std::vector<Product>& sizes, int team_size = 0,
                              int pad = 0, HostKernel kernel = HostKernel::chosen) {
  using Host = Kokkos::DefaultHostExecutionSpace;
  using Matrix = Kokkos::View<T**, Kokkos::LayoutRight, Host>;
  for (auto [m, n, k] : sizes) {
    Matrix wide_a("A", m, k + pad), wide_b("B", k, n + pad), wide_c("C", m, n + pad);
    auto A = leading(wide_a, m, k);
    auto B = leading(wide_b, k, n);
    auto C = leading(wide_c, m, n);
    // Beyond the matrices (the padding columns): values that would show in C if read.
    Kokkos::deep_copy(wide_a, T(100));
    Kokkos::deep_copy(wide_b, T(100));
    for (int i = 0; i < m; ++i)
      for (int p = 0; p < k; ++p)
        A(i, p) = T((i * 7 + p * 3) % 7 - 3);
    for (int p = 0; p < k; ++p)
      for (int j = 0; j < n; ++j)
        B(p, j) = T((p * 5 + j * 11) % 5 - 2);
    std::vector<std::int64_t> ref(std::size_t(m) * n, 0);
    for (int i = 0; i < m; ++i)
      for (int p = 0; p < k; ++p)
        for (int j = 0; j < n; ++j)
          ref[std::size_t(i) * n + j] += std::int64_t(A(i, p)) * std::int64_t(B(p, j));
    const auto names = tile == 64 ? host_shapes_t<T, 64>::names() : host_shapes_t<T, 128>::names();
    for (const std::string& shape : names) {
      Kokkos::deep_copy(wide_c, T(-12345)); // no kernel result: every element must be written
      typename decltype(A)::const_type a = A;
      typename decltype(B)::const_type b = B;
      auto run = [&, m = m, n = n](auto s) { // (structured bindings: captured by copy, C++17)
        using S = decltype(s);
        if (kernel == HostKernel::team_packed) {
          matmul_tiled_rb_host_team_packed<S::BM, S::BN, S::TM, S::TN>(Host(), a, b, C, team_size);
          return;
        }
        // The shared panels wherever the product has two tiles of GR x (BN / TN) blocks or more
        // (the last tile is a block or more).
        const int block_rows = (S::BM + S::TM - 1) / S::TM * S::TM;
        const bool shared = m > block_rows || n > S::BN;
        EXPECT_EQ(matmul_tiled_rb(Host(), a, b, C, tile, team_size, shape).padded, shared)
            << "shape " << shape << " tile " << tile << " " << m << "x" << n;
      };
      const bool found = tile == 64 ? host_shapes_t<T, 64>::visit(shape, run)
                                    : host_shapes_t<T, 128>::visit(shape, run);
      ASSERT_TRUE(found) << shape;
      Host().fence();
      int bad = 0;
      for (int i = 0; i < m; ++i)
        for (int j = 0; j < n; ++j)
          if (std::int64_t(C(i, j)) != ref[std::size_t(i) * n + j] && bad++ < 3)
            ADD_FAILURE() << "shape " << shape << " tile " << tile << " team " << team_size
                          << " pad " << pad << " " << m << "x" << n << "x" << k << ": C(" << i
                          << ", " << j << ") = " << C(i, j) << ", expected "
                          << ref[std::size_t(i) * n + j];
      for (int i = 0; i < m; ++i) // the padding of C is not the product's
        for (int j = n; j < n + pad; ++j)
          if (wide_c(i, j) != T(-12345) && bad++ < 3)
            ADD_FAILURE() << "shape " << shape << ": wrote C's padding at (" << i << ", " << j
                          << ")";
    }
  }
}

const std::vector<Product> edge_sizes = {{257, 263, 600}, {129, 200, 9}, {7, 13, 300}};
// The packed panels' edges: K one short of, at, and just past the 256-deep chunk (and 1); fewer
// rows than TM; N a whole block plus a partial vector, and one column into a second tile.
const std::vector<Product> panel_sizes = {
    {5, 40, 255}, {131, 129, 256}, {3, 33, 257}, {1, 1, 1}, {70, 97, 513}};

template <class T>
void expect_every_shape_exact(int tile) {
  expect_every_shape_exact<T>(tile, edge_sizes);
}

TEST(MatmulHostShapes, EveryShapeExactFloat32) {
  expect_every_shape_exact<float>(64);
  expect_every_shape_exact<float>(128);
}
TEST(MatmulHostShapes, EveryShapeExactFloat64) {
  expect_every_shape_exact<double>(64);
  expect_every_shape_exact<double>(128);
}
TEST(MatmulHostShapes, EveryShapeExactInt32) {
  expect_every_shape_exact<int>(64);
  expect_every_shape_exact<int>(128);
}

// The GPU lists hold shapes that differ only in how many k steps are unrolled together (KU): each
// must still have a name of its own, or `shape:` and the autotuner could never reach the later
// one (ShapeList::visit takes the first match). A full unroll keeps the name of issue 12's shapes.
TEST(MatmulGpuShapes, NamesAreDistinctAndSayThePartialUnrollAndOptions) {
  auto expect_distinct = [](const std::vector<std::string>& names, const char* list) {
    for (std::size_t i = 0; i < names.size(); ++i)
      for (std::size_t j = i + 1; j < names.size(); ++j)
        EXPECT_NE(names[i], names[j]) << list << ": shapes " << i << " and " << j;
  };
  expect_distinct(gpu_shapes_t<float, 128>::names(), "float 128");
  expect_distinct(gpu_shapes_t<float, 64>::names(), "float 64");
  expect_distinct(gpu_shapes_t<double, 128>::names(), "double 128");
  expect_distinct(gpu_shapes_t<double, 64>::names(), "double 64");
  EXPECT_EQ((GpuShape<128, 128, 16, 8, 8, 2>::name()), "128x128x16/8x8/2");
  EXPECT_EQ((GpuShape<128, 128, 16, 8, 8, 2, 16>::name()), "128x128x16/8x8/2");
  EXPECT_EQ((GpuShape<128, 128, 16, 8, 8, 2, 2>::name()), "128x128x16/8x8/2/u2");
  EXPECT_EQ((GpuShape<128, 128, 8, 4, 8, 1, 2>::name()), "128x128x8/4x8/1/u2");
  // The main-loop options follow the unroll, serpentine order before prefetching.
  EXPECT_EQ((GpuShape<128, 128, 8, 8, 8, 2, 8, shape_serpentine>::name()), "128x128x8/8x8/2/s");
  EXPECT_EQ((GpuShape<128, 128, 8, 8, 8, 1, 2, shape_prefetch>::name()), "128x128x8/8x8/1/u2/p");
  EXPECT_EQ((GpuShape<128, 128, 8, 8, 8, 1, 2, shape_serpentine | shape_prefetch>::name()),
            "128x128x8/8x8/1/u2/s/p");
}

// Packed panels at their edges, operands with leading dimensions wider than the matrix, and teams
// of every thread this process has packing the shared panels together (barriers between a
// chunk's packing and its products, and before the next chunk overwrites them).
TEST(MatmulHostShapes, PackedPanelsAtEdgesWithStridesAndSharedTeams) {
  const int threads = Kokkos::DefaultHostExecutionSpace().concurrency();
  for (int tile : {64, 128}) {
    expect_every_shape_exact<float>(tile, panel_sizes);
    expect_every_shape_exact<double>(tile, panel_sizes, 0, 5);
    expect_every_shape_exact<int>(tile, panel_sizes, 0, 16);
    expect_every_shape_exact<float>(tile, edge_sizes, threads, 3);
    expect_every_shape_exact<double>(tile, panel_sizes, threads);
  }
}

// The team-packed kernel, which runs where the shared panels' workspace cannot be allocated, at
// sizes of several tiles (matmul_tiled_rb gives it only products of one tile).
TEST(MatmulHostShapes, TeamPackedKernelExactAtSeveralTiles) {
  const int threads = Kokkos::DefaultHostExecutionSpace().concurrency();
  for (int tile : {64, 128}) {
    expect_every_shape_exact<float>(tile, edge_sizes, 0, 0, HostKernel::team_packed);
    expect_every_shape_exact<double>(tile, panel_sizes, threads, 5, HostKernel::team_packed);
    expect_every_shape_exact<int>(tile, edge_sizes, 0, 16, HostKernel::team_packed);
  }
}

// Split-K on GPUs (kernels/matmul_tiled_rb_gpu.hpp): parts where the tiles fill at most half
// the multiprocessors (one team each); with two teams a multiprocessor, where they leave a last
// wave at most a quarter full after one whole wave (4 parts); with one, the parts that make the
// fewest waves of a part's depth, if at least a tenth fewer; each part at least split_k_depth of
// K deep.
TEST(MatmulGpuSplitK, PartsFillTheMultiprocessorsOrTheLastWave) {
  EXPECT_EQ(split_k_for(64, 1024, 132, 2), 2); // 1024 float32 on 132 SMs: one team an SM
  EXPECT_EQ(split_k_for(64, 1024, 132, 1), 2); // float64
  EXPECT_EQ(split_k_for(16, 512, 132, 2), 8);  // 512: K / 64 limits 8 to 8
  EXPECT_EQ(split_k_for(4, 256, 132, 2), 4);   // 256: K / 64 limits 33 to 4
  EXPECT_EQ(split_k_for(66, 4096, 132, 2), 2); // exactly half the multiprocessors
  EXPECT_EQ(split_k_for(67, 4096, 132, 2), 1); // more than half, under one wave: no split
  EXPECT_EQ(split_k_for(256, 2048, 132, 2), 1);
  EXPECT_EQ(split_k_for(289, 2056, 132, 2), 4);  // 2049: 25 tiles past one wave of 264
  EXPECT_EQ(split_k_for(330, 4096, 132, 2), 4);  // 66 past: a quarter of the wave
  EXPECT_EQ(split_k_for(331, 4096, 132, 2), 1);  // more than a quarter
  EXPECT_EQ(split_k_for(289, 2056, 132, 1), 4);  // float64 at 2049: 3 waves, 9 of a quarter
  EXPECT_EQ(split_k_for(680, 3500, 132, 1), 4);  // float64 5000x2100x3500: 6 waves, 21 quarters
  EXPECT_EQ(split_k_for(576, 3072, 132, 1), 2);  // float64 3072: 5 waves, 9 halves (a tenth)
  EXPECT_EQ(split_k_for(624, 3456, 132, 1), 1);  // 5 waves, 19 quarters: not a tenth fewer
  EXPECT_EQ(split_k_for(4096, 8192, 132, 1), 1); // float64 8192: 32 waves, 125 quarters
  EXPECT_EQ(split_k_for(1089, 4104, 132, 2), 1); // 4097: five waves
  EXPECT_EQ(split_k_for(289, 192, 132, 2), 3);   // K / 64 limits 4 to 3
  EXPECT_EQ(split_k_for(9, 127, 132, 2), 1);     // too shallow for two parts of 64
  EXPECT_EQ(split_k_for(9, 0, 132, 2), 1);
  EXPECT_EQ(split_k_for(0, 1024, 132, 2), 1);
}

// The choice of the GPU kernel's default shape (tile 128) that the result row records
// (split_k, padded): from tiled_rb_gpu_choice, the function matmul_tiled_rb runs, for a device of
// 132 multiprocessors (an H200).
// *head_rows: the rows of C before a split tail (split_k_tail), 0 where none.
template <class T>
LaunchChoice default_gpu_choice(std::int64_t m, std::int64_t n, std::int64_t k,
                                int* head_rows = nullptr) {
  LaunchChoice c{-1, false};
  gpu_shapes_t<T, 128>::visit("", [&](auto s) {
    using S = decltype(s);
    c = tiled_rb_gpu_choice(m, n, k, S::BM, S::BN, S::BK, S::Teams,
                            vector_loads_for<T> ? Fragment<T>::width : 0, 132, head_rows);
  });
  return c;
}

void expect_choice(LaunchChoice got, int split_k, bool padded) {
  EXPECT_EQ(got.split_k, split_k);
  EXPECT_EQ(got.padded, padded);
}

// The tail's split (split_k_tail): the rows of tiles that fit in whole waves run over all of K,
// the rest in the parts that make the fewest waves of a part's depth, where the product's waves
// are then at least a tenth fewer.
TEST(MatmulGpuSplitK, TailAfterTheWholeWavesSplits) {
  auto expect_tail = [](TailSplit got, int head, int parts) {
    EXPECT_EQ(got.head_tile_rows, head);
    EXPECT_EQ(got.parts, parts);
  };
  // float32 2049x3000x4097, padded: 17 x 24 tiles, 264 slots: 11 rows whole, 144 tiles in 7 parts
  // (1008 parts: 4 waves of a seventh's depth against one whole)
  expect_tail(split_k_tail(17, 24, 4104, 132, 2), 11, 7);
  expect_tail(split_k_tail(33, 33, 4104, 132, 2), 32, 8); // 4097: a row of 33 tiles after 32
  expect_tail(split_k_tail(40, 17, 3504, 132, 2), 31, 5); // 5000x2100x3500: 153 tiles after 31
  expect_tail(split_k_tail(23, 16, 512, 132, 2), 16, 2);  // K / 256 limits the parts to 2
  expect_tail(split_k_tail(32, 32, 4096, 132, 2), 0, 1);  // 4096: 256 tiles gain nothing split
  // 3500, padded: 18 rows (504 tiles, 2 waves), then 280 tiles in 8 parts (9 waves of an eighth):
  // 3.125 waves against 3 unsplit
  expect_tail(split_k_tail(28, 28, 3504, 132, 2), 0, 1);
  expect_tail(split_k_tail(31, 31, 3968, 132, 2), 0, 1); // 3968: 3 + 5/7 waves against 4
  expect_tail(split_k_tail(24, 11, 4096, 132, 2), 0, 1); // 264 tiles: whole waves
  expect_tail(split_k_tail(16, 16, 4096, 132, 2), 0, 1); // fewer tiles than slots
  // One team an SM (float64), a twentieth fewer: 2049x3000x4097, 16 rows (3 waves), then 24 tiles
  // in 5 parts, 3.2 waves against 4; 4097, 32 rows, then 33 in 4: 8.25 against 9; 5000, 39 rows,
  // then 40 in 3: 12.33 against 13 (a twentieth exactly: 37 thirds against 39); 4096 and 8192 not
  expect_tail(split_k_tail(17, 24, 4104, 132, 1), 16, 5);
  expect_tail(split_k_tail(33, 33, 4104, 132, 1), 32, 4);
  expect_tail(split_k_tail(40, 40, 5000, 132, 1), 39, 3);
  expect_tail(split_k_tail(32, 32, 4096, 132, 1), 0, 1);
  expect_tail(split_k_tail(64, 64, 8192, 132, 1), 0, 1);
  expect_tail(split_k_tail(17, 24, 300, 132, 2), 0, 1);  // too shallow for two parts of 256
  expect_tail(split_k_tail(1, 300, 4096, 132, 2), 0, 1); // no whole row of tiles in the waves
}

TEST(MatmulGpuChoice, SplitAndPaddingRecordedForTheDefaultShape) {
  expect_choice(default_gpu_choice<float>(1024, 1024, 1024), 2, false); // 64 tiles, 132 SMs
  expect_choice(default_gpu_choice<float>(512, 512, 512), 8, false);
  expect_choice(default_gpu_choice<float>(4096, 4096, 4096), 1, false);
  int head = -1;
  expect_choice(default_gpu_choice<float>(4097, 4097, 4097, &head), 8, true); // four waves, a row
  EXPECT_EQ(head, 4096);
  expect_choice(default_gpu_choice<float>(2049, 3000, 4097, &head), 7, true);
  EXPECT_EQ(head, 11 * 128);
  // 2049: padded (K to 2056), 289 tiles, 25 past one wave of 264: 4 parts of K
  expect_choice(default_gpu_choice<float>(2049, 2049, 2049, &head), 4, true);
  EXPECT_EQ(head, 0);                                                  // the whole product split
  expect_choice(default_gpu_choice<float>(4096, 4096, 4002), 1, true); // K not whole 16 bytes
  expect_choice(default_gpu_choice<float>(1024, 1024, 0), 1, false);
  // float64 reads no 16-byte runs from global memory: never padded
  expect_choice(default_gpu_choice<double>(1024, 1024, 1024), 2, false);
  // float64, one team an SM: the tail's split first (4097: a row of 33 tiles in 4 parts)
  expect_choice(default_gpu_choice<double>(4097, 4097, 4097, &head), 4, false);
  EXPECT_EQ(head, 4096);
  // 680 tiles: 38 rows whole (5 waves), then 34 tiles in 7 parts (2 waves of a seventh), 5.29
  // waves against 6 unsplit and 5.25 split whole in 4 (which adds every tile's parts to sum)
  expect_choice(default_gpu_choice<double>(5000, 2100, 3500, &head), 7, false);
  EXPECT_EQ(head, 38 * 128);
  // 2049 (289 tiles): 15 rows whole, 34 tiles in 7 parts
  expect_choice(default_gpu_choice<double>(2049, 2049, 2049, &head), 7, false);
  EXPECT_EQ(head, 15 * 128);
}

// The GPU kernel's padded operands (kernels/matmul_padded.hpp), run here on the host: src's
// elements in place, zeros past its rows and columns, whether rows are whole 16-byte runs (16
// bytes a thread) or not (an element a thread).
TEST(MatmulGpuChoice, PaddedCopiesKeepEveryElementAndZeroTheRest) {
  using M = Kokkos::View<float**, Kokkos::LayoutRight, Kokkos::HostSpace>;
  for (int cols : {12, 13}) {
    M src("src", 5, cols), dst("dst", 8, 16);
    for (int r = 0; r < 5; ++r)
      for (int c = 0; c < cols; ++c)
        src(r, c) = float(1 + r * 100 + c);
    Kokkos::deep_copy(dst, -1.0f); // poisoned: every element must be written
    copy_zero_padded(Kokkos::DefaultHostExecutionSpace(), dst, src);
    Kokkos::fence();
    for (int r = 0; r < 8; ++r)
      for (int c = 0; c < 16; ++c)
        EXPECT_EQ(dst(r, c), r < 5 && c < cols ? float(1 + r * 100 + c) : 0.0f)
            << "cols " << cols << " at " << r << ", " << c;
  }
}

// Types without 16-byte loads (float64) take the GPU kernel without bounds tests at any size of at
// least a tile each way: its edge tiles are moved back inside A and B (full_kernel_fits); smaller
// ones, or columns that are not contiguous, take the kernel with tested loads.
TEST(MatmulGpuChoice, MovedEdgeTilesNeedATileEachWay) {
  using Right = Kokkos::View<double**, Kokkos::LayoutRight, Kokkos::HostSpace>;
  using Left = Kokkos::View<double**, Kokkos::LayoutLeft, Kokkos::HostSpace>;
  auto fits = [](const auto& A, const auto& B) { return full_kernel_fits<128, 128>(A, B); };
  EXPECT_TRUE(fits(Right("A", 2052, 36), Right("B", 36, 1156)));
  EXPECT_TRUE(fits(Right("A", 128, 1), Right("B", 1, 128)));
  EXPECT_FALSE(fits(Right("A", 127, 36), Right("B", 36, 1156)));
  EXPECT_FALSE(fits(Right("A", 2052, 36), Right("B", 36, 100)));
  EXPECT_TRUE(fits(Right("A", 0, 36), Right("B", 36, 1156))); // nothing to compute
  EXPECT_FALSE(fits(Left("A", 256, 36), Right("B", 36, 256)));
}

// Parts of whole k-tiles, none empty: 3 parts asked of K = 24 in k-tiles of 16 run as 2 of 16.
TEST(MatmulGpuChoice, PartsThatRunHaveWholeKTilesAndNoneEmpty) {
  EXPECT_EQ(split_k_chunk(3, 24, 16), 16);
  EXPECT_EQ(split_k_parts(3, 24, 16), 2);
  EXPECT_EQ(split_k_parts(8, 512, 8), 8);
  EXPECT_EQ(split_k_parts(4, 0, 8), 1);
  EXPECT_EQ(split_k_parts(1, 512, 8), 1);
  EXPECT_EQ(split_k_chunk(1, 512, 8), 512);
}

} // namespace
} // namespace miniapp::kernels
