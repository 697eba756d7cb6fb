// Every kernel family, variant and element type on every backend compiled in, at awkward sizes
// (1, primes, non-multiples of the tile, rectangles), validated element by element against the
// host reference; and the worked examples of the source documents, exactly.
#include "kernels/executor.hpp"
#include "kernels/families.hpp"
#include "kernels/kernel_case.hpp"
#include "backend_params.hpp"
#include "kernels/matrix.hpp"
#include "kernels/tile_index_case.hpp"
#include "core/backends.hpp"

#include <Kokkos_Core.hpp>
#include <gtest/gtest.h>

#include <cstdint>
#include <tuple>

namespace miniapp {
namespace {

using Param = BackendPrecision;

std::vector<double> run_and_fetch(const Case& c, const std::string& backend,
                                  Validation* v = nullptr) {
  auto k = make_kernel_case(c, backend);
  checked_run(*k);
  if (v)
    *v = k->validate(0);
  return k->result();
}

void expect_valid(const Case& c, const std::string& backend) {
  Validation v;
  run_and_fetch(c, backend, &v);
  EXPECT_TRUE(v.checked);
  EXPECT_TRUE(v.passed) << backend << " " << c.id() << ": " << v.bad_elements
                        << " bad element(s), first " << v.first_bad;
}

class Kernels : public ::testing::TestWithParam<Param> {
protected:
  std::string backend() const { return std::get<0>(GetParam()); }
  Precision precision() const { return std::get<1>(GetParam()); }
  Case make(const std::string& family, const std::string& variant, std::int64_t m, std::int64_t n,
            std::int64_t k = 0, int tile = 0) const {
    Case c;
    c.family = family;
    c.variant = variant;
    c.precision = precision();
    c.m = m;
    c.n = n;
    c.k = k;
    c.tile = tile;
    c.seed = std::uint64_t(m * 131 + n * 7 + k);
    return c;
  }
};

const std::vector<std::array<std::int64_t, 3>> matmul_sizes = {
    {1, 1, 1}, {3, 3, 2}, {7, 13, 5}, {17, 31, 19}, {33, 65, 47}, {64, 64, 64}, {130, 70, 129}};
// Several tiles in every direction and many k-tiles, none a multiple of a tile: the GPU tiled_rb's
// two scratch stages alternate and its edges are padded in M, N and K; the host shape's interior
// and edge blocks both run. 261x300x148 has K and N multiples of 4: the GPU float32 kernel's
// 16-byte global loads (kernels/matmul.hpp, PipelinedLoads), with partial tiles at every edge.
// 256x384x96 is whole tiles of every GPU shape (BM, BN <= 128 dividing, BK 8 or 16): the kernel
// without bounds tests (tiles_are_whole), over six to twelve k-tiles. On a GPU these few tiles
// take split-K (kernels/matmul_split_k.hpp: parts of K summed into C by a second launch).
const std::vector<std::array<std::int64_t, 3>> register_blocked_sizes = {
    {257, 263, 211}, {129, 200, 9}, {261, 300, 148}, {256, 384, 96}};
// GPUs only: more tiles than an H100 or H200 holds teams at once (170 of 128 x 128, 627 of
// 64 x 64), so they run unsplit: float32 on zero-padded copies of A and B (K, N odd or multiples
// of 4), float64 on A and B themselves, the edge tiles moved back inside them and K's remainder
// (37: 5, 36: 4) the first k-tile (kernels/matmul_tiled_rb_gpu.hpp, full_kernel_fits).
const std::vector<std::array<std::int64_t, 3>> gpu_unsplit_edge_sizes = {{2049, 1153, 37},
                                                                         {2052, 1156, 36}};
// GPUs only, tiles 64 and 128 (the default shapes): 289 tiles of 128 x 128, 25 past the 264 that
// 132 SMs hold at once in float32, so the last wave would be nearly empty: split-K in 4 parts
// (split_k_for), on zero-padded copies of A and B (kernels/matmul_padded.hpp).
const std::array<std::int64_t, 3> gpu_split_tail_size = {2049, 2049, 256};
// GPUs only, float32 tile 128: 23 x 16 tiles, 104 past one wave of 264: the 16 rows of tiles that
// fill it run over all of K, the last 7 in 2 parts of K (split_k_tail). The second, no dimension
// whole tiles: float64 (one team an SM, 17 x 16 tiles) runs 16 rows over all of K and the last
// 16 tiles in 4 parts, its last row and column of tiles moved back inside A and B and the last
// part's first k-tile K's remainder (1028 = 3 x 264 + 236).
const std::array<std::int64_t, 3> gpu_split_rows_after_waves_size = {2944, 2048, 512};
const std::array<std::int64_t, 3> gpu_split_rows_moved_edges_size = {2100, 2044, 1028};

std::vector<std::array<std::int64_t, 3>> register_blocked_sizes_for(const std::string& backend) {
  auto sizes = register_blocked_sizes;
  if (backend == "cuda" || backend == "hip")
    sizes.insert(sizes.end(), gpu_unsplit_edge_sizes.begin(), gpu_unsplit_edge_sizes.end());
  return sizes;
}

TEST_P(Kernels, MatmulFlat) {
  for (auto [m, n, k] : matmul_sizes)
    expect_valid(make("matmul", "flat", m, n, k), backend());
}

TEST_P(Kernels, MatmulTiledEveryWidth) {
  for (int tile : {2, 3, 4, 8, 16, 32})
    for (auto [m, n, k] : matmul_sizes)
      expect_valid(make("matmul", "tiled", m, n, k, tile), backend());
}

TEST_P(Kernels, MatmulTiledRegisterBlocked) {
  for (int tile : {64, 128}) {
    for (auto [m, n, k] : matmul_sizes)
      expect_valid(make("matmul", "tiled_rb", m, n, k, tile), backend());
    for (auto [m, n, k] : register_blocked_sizes_for(backend()))
      expect_valid(make("matmul", "tiled_rb", m, n, k, tile), backend());
    if (backend() == "cuda" || backend() == "hip") {
      for (auto [m, n, k] :
           {gpu_split_tail_size, gpu_split_rows_after_waves_size, gpu_split_rows_moved_edges_size})
        expect_valid(make("matmul", "tiled_rb", m, n, k, tile), backend());
    }
  }
}

// Issue 44: what tiled_rb chose at launch reaches the result row through launch_choice(): on host
// backends one part of K, operands as given (the GPU's choice: test_matmul_host_shapes.cpp,
// MatmulGpuChoice); variants that choose nothing say split_k 0.
TEST_P(Kernels, MatmulLaunchChoiceOfTheLatestRun) {
  auto rb = make_kernel_case(make("matmul", "tiled_rb", 130, 70, 129, 128), backend());
  EXPECT_EQ(rb->launch_choice().split_k, 0); // nothing ran yet
  checked_run(*rb);
  const bool gpu = backend() == "cuda" || backend() == "hip";
  if (gpu) {
    EXPECT_GE(rb->launch_choice().split_k, 1);
  } else {
    EXPECT_EQ(rb->launch_choice().split_k, 1);
    EXPECT_FALSE(rb->launch_choice().padded);
  }
  auto flat = make_kernel_case(make("matmul", "flat", 13, 7, 5), backend());
  checked_run(*flat);
  EXPECT_EQ(flat->launch_choice().split_k, 0);
}

// Issue 12: every tile shape compiled for this backend kind (kernels/matmul_shapes.hpp: the host
// lists on Serial/OpenMP, the GPU lists on a CUDA or HIP build), by name, at both tiles.
TEST_P(Kernels, MatmulTiledRegisterBlockedEveryShape) {
  for (int tile : {64, 128}) {
    const std::vector<std::string> shapes =
        shape_names(make("matmul", "tiled_rb", 1, 1, 1, tile), backend());
    ASSERT_FALSE(shapes.empty()) << "tile " << tile;
    for (const std::string& shape : shapes)
      for (auto [m, n, k] : register_blocked_sizes_for(backend())) {
        Case c = make("matmul", "tiled_rb", m, n, k, tile);
        c.shape = shape;
        SCOPED_TRACE("shape " + shape);
        expect_valid(c, backend());
      }
  }
}

TEST_P(Kernels, MatmulTiledRegisterBlockedRefusesAShapeNotCompiled) {
  Case c = make("matmul", "tiled_rb", 9, 9, 9, 64);
  c.shape = "3x3/1x1";
  EXPECT_THROW(run_and_fetch(c, backend()), std::invalid_argument);
}

TEST_P(Kernels, MatmulVendorOrClearlyUnsupported) {
  for (auto [m, n, k] : matmul_sizes) {
    const Case c = make("matmul", "vendor", m, n, k);
    const bool has_vendor = precision() != Precision::int32 && backend() != "hip";
    if (has_vendor)
      expect_valid(c, backend());
    else
      EXPECT_THROW(make_kernel_case(c, backend()), UnsupportedCase);
  }
}

TEST_P(Kernels, AxpbyEveryVariantInAndOutOfPlace) {
  for (const char* variant : {"flat", "mdrange", "team"})
    for (bool in_place : {false, true})
      for (auto [m, n] : std::vector<std::pair<int, int>>{{1, 1}, {7, 13}, {31, 1}, {100, 257}}) {
        Case c = make("axpby", variant, m, n);
        c.in_place = in_place;
        c.alpha = 3;
        c.beta = -2;
        expect_valid(c, backend());
      }
}

TEST_P(Kernels, TileAverageBothVariantsWithOverhangingTiles) {
  for (const char* variant : {"leader", "team_reduce"})
    for (int S : {1, 2, 3, 4, 16})
      for (auto [m, n] : std::vector<std::pair<int, int>>{{1, 1}, {8, 8}, {13, 7}, {64, 100}})
        expect_valid(make("tile_average", variant, m, n, 0, S), backend());
}

TEST_P(Kernels, TileIndexMap) {
  for (auto [m, n] : std::vector<std::pair<int, int>>{{1, 1}, {8, 9}, {13, 7}}) {
    Case c = make("tile_index", "team", m, n, 0, 2);
    c.tile_cols = 3; // a factory has no defaults (kernels/families.hpp)
    expect_valid(c, backend());
  }
}

// Validation must be able to fail: an output the kernel never wrote is caught.
TEST_P(Kernels, ValidationCatchesUnwrittenOutput) {
  const Case c = make("matmul", "tiled", 9, 10, 11, 4);
  auto k = make_kernel_case(c, backend());
  k->upload();
  k->poison();
  Kokkos::fence();
  k->download(); // no run(): the output still holds the poison value
  const Validation v = k->validate(0);
  EXPECT_FALSE(v.passed);
  EXPECT_EQ(v.bad_elements, 90);
}

INSTANTIATE_TEST_SUITE_P(AllBackends, Kernels, ::testing::ValuesIn(all_backend_precisions()),
                         backend_precision_name);

// Every case's matrices start on a 512-byte boundary (a Kokkos 3.x View's data starts 128 bytes
// past its allocation, which cost the float64 tiled transpose 4% on an H100), and a copy of a
// DualMatrix keeps its memory after the original is gone.
template <class Exec>
void expect_aligned_and_owned() {
  using M = kernels::DualMatrix<double, Exec>;
  for (int rows : {1, 3, 33, 4097}) {
    const M a("aligned", rows, 5, false);
    const auto at = reinterpret_cast<std::uintptr_t>(a.d.data());
    EXPECT_EQ(at % M::alignment, 0u) << rows << " rows";
    EXPECT_LE(at + sizeof(double) * a.d.size(),
              reinterpret_cast<std::uintptr_t>(a.storage.data()) + a.storage.size())
        << rows << " rows: the matrix ends past its storage";
  }
  M copy;
  {
    const M original("owned", 5, 7, false);
    copy = original;
  }
  Kokkos::deep_copy(copy.d, 2.5);
  copy.download();
  EXPECT_EQ(copy.h(4, 6), 2.5);
}

TEST(DualMatrix, DataOnA512ByteBoundaryOwnedByEveryCopy) {
  expect_aligned_and_owned<Kokkos::DefaultExecutionSpace>();
  expect_aligned_and_owned<Kokkos::DefaultHostExecutionSpace>();
}

// The worked examples of the source documents, exactly.
class WorkedExamples : public ::testing::TestWithParam<std::string> {};

Case explicit_matmul(const std::string& variant, int tile, std::vector<std::vector<double>> a,
                     std::vector<std::vector<double>> b) {
  Case c;
  c.family = "matmul";
  c.variant = variant;
  c.precision = Precision::int32;
  c.m = std::int64_t(a.size());
  c.k = std::int64_t(b.size());
  c.n = std::int64_t(b[0].size());
  c.tile = tile;
  c.init = "explicit";
  c.a_values = std::move(a);
  c.b_values = std::move(b);
  return c;
}

TEST_P(WorkedExamples, Product3x2By2x3FlatAndTiled) {
  const std::vector<double> want = {47, 52, 57, 64, 71, 78, 81, 90, 99};
  for (auto [variant, tile] :
       std::vector<std::pair<std::string, int>>{{"flat", 0}, {"tiled", 2}, {"tiled", 3}})
    EXPECT_EQ(run_and_fetch(explicit_matmul(variant, tile, {{1, 4}, {2, 5}, {3, 6}},
                                            {{7, 8, 9}, {10, 11, 12}}),
                            GetParam()),
              want)
        << variant << " tile " << tile;
}

TEST_P(WorkedExamples, Product4x4With2x2Tiles) {
  const std::vector<std::vector<double>> m = {
      {1, 2, 3, 4}, {5, 6, 7, 8}, {1, 2, 3, 4}, {5, 6, 7, 8}};
  const std::vector<double> want = {34, 44, 54, 64, 82, 108, 134, 160,
                                    34, 44, 54, 64, 82, 108, 134, 160};
  EXPECT_EQ(run_and_fetch(explicit_matmul("tiled", 2, m, m), GetParam()), want);
}

TEST_P(WorkedExamples, TileAverages8x8) {
  for (const char* variant : {"leader", "team_reduce"}) {
    Case c;
    c.family = "tile_average";
    c.variant = variant;
    c.precision = Precision::float32;
    c.m = c.n = 8;
    c.init = "iota";
    c.tile = 2;
    EXPECT_EQ(run_and_fetch(c, GetParam()),
              (std::vector<double>{4.5, 6.5, 8.5, 10.5, 20.5, 22.5, 24.5, 26.5, 36.5, 38.5, 40.5,
                                   42.5, 52.5, 54.5, 56.5, 58.5}))
        << variant;
    c.tile = 4;
    EXPECT_EQ(run_and_fetch(c, GetParam()), (std::vector<double>{13.5, 17.5, 45.5, 49.5}))
        << variant;
  }
}

TEST_P(WorkedExamples, IndexMap8x9With2x3Tiles) {
  const auto map = kernels::compute_index_map(8, 9, 2, 3, GetParam());
  // Element (5, 7): tile (2, 2), local (1, 1), as in the source's diagram.
  EXPECT_EQ(map.at(5, 7, 0), 5);
  EXPECT_EQ(map.at(5, 7, 1), 7);
  EXPECT_EQ(map.at(5, 7, 2), 2);
  EXPECT_EQ(map.at(5, 7, 3), 2);
  EXPECT_EQ(map.at(5, 7, 4), 1);
  EXPECT_EQ(map.at(5, 7, 5), 1);
  std::ostringstream os;
  kernels::print_index_map(os, map, false);
  EXPECT_NE(os.str().find("Value: 43      "), std::string::npos);
  EXPECT_NE(os.str().find("Tile:   (2,2)  "), std::string::npos);
  EXPECT_EQ(os.str().find("\033["), std::string::npos); // no colour codes when asked for none
}

INSTANTIATE_TEST_SUITE_P(AllBackends, WorkedExamples, ::testing::ValuesIn(compiled_backends()));

} // namespace
} // namespace miniapp
