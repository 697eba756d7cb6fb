// The transpose family (B = A^T) on every backend compiled in and every precision: both variants
// at awkward shapes and tile widths, checked against B(i, j) = A(j, i) computed here from iota
// inputs as well as by the case's own validation; the poisoned output is fully overwritten; a
// single wrong element is caught; tiles that cannot run are refused before launch.
#include "backend_params.hpp"
#include "kernels/families.hpp"
#include "kernels/transpose.hpp"
#include "kernels/transpose_case.hpp"
#include "core/size_math.hpp"
#include "core/backends.hpp"

#include <Kokkos_Core.hpp>
#include <gtest/gtest.h>

#include <cmath>

namespace miniapp {
namespace {

using Param = BackendPrecision;

const std::vector<std::pair<std::int64_t, std::int64_t>> shapes = {
    {1, 1}, {1, 37}, {37, 1}, {2, 3}, {32, 32}, {33, 65}, {100, 31}, {64, 130}};

class Transpose : public ::testing::TestWithParam<Param> {
protected:
  std::string backend() const { return std::get<0>(GetParam()); }
  Case make(const std::string& variant, std::int64_t m, std::int64_t n, int tile = 0) const {
    Case c;
    c.family = "transpose";
    c.variant = variant;
    c.precision = std::get<1>(GetParam());
    c.m = m;
    c.n = n;
    c.tile = tile;
    c.init = "iota"; // A(i, j) = i * n + j: exact in every precision at these sizes
    if (tile == 0)
      resolve_parameters(c); // the family table's default tile, as the plan gives it
    return c;
  }
  // Poison, run, download; the output as doubles, and the case's own validation.
  std::vector<double> run(const Case& c, Validation* v = nullptr) const {
    auto k = kernels::make_transpose_case(c, backend(), Block{});
    k->upload();
    k->poison();
    k->run();
    k->fence();
    k->download();
    if (v)
      *v = k->validate(0);
    return k->result();
  }
  void expect_transposed(const Case& c) const {
    Validation v;
    const auto b = run(c, &v);
    EXPECT_TRUE(v.checked);
    EXPECT_TRUE(v.passed) << c.id() << ": " << v.bad_elements << " bad, first " << v.first_bad;
    ASSERT_EQ(b.size(), std::size_t(c.m * c.n)) << c.id();
    long long wrong = 0; // every element, poison included, against the iota inputs
    for (std::int64_t i = 0; i < c.n; ++i)
      for (std::int64_t j = 0; j < c.m; ++j)
        wrong += b[std::size_t(i * c.m + j)] != double(j * c.n + i);
    EXPECT_EQ(wrong, 0) << c.id();
  }
};

TEST_P(Transpose, FlatEveryShape) {
  for (auto [m, n] : shapes)
    expect_transposed(make("flat", m, n));
}

TEST_P(Transpose, TiledEveryShapeAndTileWidth) {
  for (int tile : {2, 7, 32, 0}) // 0: the table's default width
    for (auto [m, n] : shapes)
      expect_transposed(make("tiled", m, n, tile));
}

TEST_P(Transpose, TiledAtEveryScratchPadding) {
  // pad (the case-field table's row; 1 by default) changes only the scratch tile's row stride:
  // 0 (unpadded) and wider pads transpose exactly as the default does.
  for (int pad : {0, 2, 5})
    for (int tile : {7, 32})
      for (auto [m, n] : shapes) {
        Case c = make("tiled", m, n, tile);
        c.table_params["pad"] = pad;
        ASSERT_EQ(c.table_param("pad"), pad);
        expect_transposed(c);
      }
}

// The case's pad reaches the kernel's scratch tile: a pad that makes the 32 x (32 + pad) tile
// larger than the backend's level-0 scratch is refused naming the bytes it needs.
TEST_P(Transpose, ThePaddingSizesTheScratchTile) {
  Case c = make("tiled", 64, 64, 32);
  with_backend(backend(), [&](auto exec) {
    with_precision(c.precision, [&](auto value) {
      using T = decltype(value);
      const std::size_t max = Kokkos::TeamPolicy<decltype(exec)>::scratch_size_max(0);
      const int pad = int(max / (32 * sizeof(T)));
      c.table_params["pad"] = pad;
      const std::size_t need = kernels::transpose_tile_bytes<T>(32, pad);
      ASSERT_GT(need, max);
      try {
        kernels::make_transpose_case(c, backend(), Block{});
        ADD_FAILURE() << "pad " << pad << " (" << need << " bytes of scratch) was accepted";
      } catch (const ResourceError& e) {
        EXPECT_NE(std::string(e.what()).find(std::to_string(need)), std::string::npos) << e.what();
      }
    });
  });
}

TEST_P(Transpose, TiledWithAUserTeamSize) {
  // Team sizes that divide neither the tile's element count nor its width. One thread always
  // runs; larger teams run where the backend allows them (GPUs) and are refused where it does
  // not (a host pool of 2 threads), naming the size, never run partly.
  for (int ts : {1, 3, 5}) {
    Case c = make("tiled", 45, 70, 8);
    c.team_size = ts;
    try {
      expect_transposed(c);
    } catch (const kernels::LaunchError& e) {
      EXPECT_GT(ts, 1);
      EXPECT_NE(std::string(e.what()).find("team_size " + std::to_string(ts)), std::string::npos)
          << e.what();
    }
  }
}

// Tile widths 16, 32 and 64 run their full tiles through a compiled thread grid on GPUs (2, 4 or
// 8 rows of threads, as the team size asks) and their edge tiles, and teams of other sizes,
// through the run-time one, in the same launch: shapes with full tiles beside partial ones, at
// the default team size, at each compiled grid of each width, and at 96 threads, which none
// fits. GPUs run them all; host pools refuse the teams they cannot run, naming the size.
TEST_P(Transpose, CompiledTileWidthsWithFullAndEdgeTiles) {
  const std::vector<std::pair<std::int64_t, std::int64_t>> mixed = {
      {128, 192}, {130, 97}, {64, 64}, {200, 65}};
  for (int tile : {16, 32, 64})
    for (auto [m, n] : mixed)
      for (int ts : {0, 64, 128, 256, 96}) {
        Case c = make("tiled", m, n, tile);
        c.team_size = ts;
        try {
          expect_transposed(c);
        } catch (const kernels::LaunchError& e) { // a team larger than a host pool
          EXPECT_GT(ts, 1);
          EXPECT_NE(std::string(e.what()).find("team_size " + std::to_string(ts)),
                    std::string::npos)
              << e.what();
        } catch (const ResourceError& e) { // a float64 tile of 64 in host scratch
          EXPECT_EQ(tile, kernels::kTransposeTileMax) << e.what();
        }
      }
}

// On GPUs, full 4-byte tiles of width 64 move as 2 x 2 blocks with 8-byte accesses where both
// row lengths are even (the case's matrices start on 512-byte boundaries), element by element
// where not: even and odd row lengths, with edge tiles on either side, at each compiled grid
// (128, 256 and 512 threads). The kernel is reached through the case, as in every test here: in
// a CUDA build, a kernel template instantiated from a second translation unit (a direct call of
// transpose_tiled from this file) made the case's own launches call a null host function.
TEST_P(Transpose, TheWidestTileAtEitherRowParity) {
  const std::vector<std::pair<std::int64_t, std::int64_t>> mixed = {
      {130, 194}, {128, 128}, {129, 128}, {128, 129}, {2, 66}};
  for (auto [m, n] : mixed)
    for (int ts : {0, 128, 256, 512}) {
      Case c = make("tiled", m, n, 64);
      c.team_size = ts;
      try {
        expect_transposed(c);
      } catch (const kernels::LaunchError& e) { // a team larger than a host pool
        EXPECT_NE(std::string(e.what()).find("team_size " + std::to_string(ts)), std::string::npos)
            << e.what();
      } catch (const ResourceError& e) { // a float64 tile of 64 in host scratch
        EXPECT_EQ(c.precision, Precision::float64) << e.what();
      }
    }
}

TEST_P(Transpose, RandomInputsValidate) {
  for (const char* variant : {"flat", "tiled"}) {
    Case c = make(variant, 67, 129, 16);
    c.init = "random";
    c.seed = 7;
    Validation v;
    run(c, &v);
    EXPECT_TRUE(v.passed) << c.id() << ": first bad " << v.first_bad;
    EXPECT_EQ(v.max_error, 0.0) << c.id();
  }
}

// Without run() the output still holds the poison: every element must be reported.
TEST_P(Transpose, UnwrittenOutputFailsEveryElement) {
  for (const char* variant : {"flat", "tiled"}) {
    const Case c = make(variant, 9, 13, 4);
    auto k = kernels::make_transpose_case(c, backend(), Block{});
    k->upload();
    k->poison();
    k->fence();
    k->download();
    const Validation v = k->validate(0);
    EXPECT_FALSE(v.passed) << variant;
    EXPECT_EQ(v.bad_elements, 9 * 13) << variant;
  }
}

// The check is exact: one element off by one in the downloaded output is one bad element, at its
// place, whatever tolerance the config asks for elsewhere.
TEST_P(Transpose, OneWrongElementIsCaught) {
  const Case c = make("tiled", 33, 65, 32);
  const auto b = run(c);
  with_precision(c.precision, [&](auto value) {
    using T = decltype(value);
    std::vector<T> a_data(std::size_t(c.m * c.n)), b_data(b.begin(), b.end());
    const kernels::HostMatrix<T> A(a_data.data(), c.m, c.n), B(b_data.data(), c.n, c.m);
    kernels::fill_input(A, c, 0, c.a_values);
    EXPECT_TRUE(kernels::validate_transpose(A, B).passed);
    B(40, 17) += T(1);
    const Validation v = kernels::validate_transpose(A, B);
    EXPECT_FALSE(v.passed);
    EXPECT_EQ(v.bad_elements, 1);
    EXPECT_EQ(v.first_bad.rfind("(40,17):", 0), 0u) << v.first_bad;
  });
}

TEST_P(Transpose, TileOutsideTheRangeIsRefusedBeforeLaunch) {
  for (int tile : {1, kernels::kTransposeTileMax + 1, 1000}) {
    try {
      kernels::make_transpose_case(make("tiled", 64, 64, tile), backend(), Block{});
      ADD_FAILURE() << "tile " << tile << " was accepted";
    } catch (const UnsupportedCase& e) {
      EXPECT_NE(std::string(e.what()).find("between 2 and 64, got " + std::to_string(tile)),
                std::string::npos)
          << e.what();
    }
  }
}

// The widest tile runs where the backend's level-0 scratch holds it and is a ResourceError naming
// both byte counts where it does not (float64 on host backends: 33280 > 32768 bytes).
TEST_P(Transpose, WidestTileRunsOrIsAResourceError) {
  const Case c = make("tiled", 130, 70, kernels::kTransposeTileMax);
  const auto [need, max] = with_backend(backend(), [&](auto exec) {
    return with_precision(c.precision, [&](auto value) {
      using Policy = Kokkos::TeamPolicy<decltype(exec)>;
      return std::pair<std::size_t, std::size_t>(
          kernels::transpose_tile_bytes<decltype(value)>(kernels::kTransposeTileMax, 1),
          std::size_t(Policy::scratch_size_max(0)));
    });
  });
  if (need <= max) {
    expect_transposed(c);
    return;
  }
  try {
    kernels::make_transpose_case(c, backend(), Block{});
    ADD_FAILURE() << "a tile needing " << need << " bytes of scratch was accepted";
  } catch (const ResourceError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(std::to_string(need)), std::string::npos) << what;
    EXPECT_NE(what.find(std::to_string(max)), std::string::npos) << what;
  }
}

TEST_P(Transpose, OnlyTheWholeMatrix) {
  const Case c = make("flat", 8, 8);
  EXPECT_NO_THROW(kernels::make_transpose_case(c, backend(), Block{0, 0, 8, 8}));
  EXPECT_THROW(kernels::make_transpose_case(c, backend(), Block{0, 0, 4, 8}), UnsupportedCase);
  EXPECT_THROW(kernels::make_transpose_case(c, backend(), Block{4, 0, 4, 8}), UnsupportedCase);
  EXPECT_THROW(kernels::make_transpose_case(make("diagonal", 8, 8, 32), backend(), Block{}),
               UnsupportedCase);
}

TEST_P(Transpose, WorkIsTwoMatricesOfBytesAndNoFlops) {
  const Case c = make("tiled", 100, 31);
  const double element = c.precision == Precision::float64 ? 8 : 4;
  const Work w = kernels::make_transpose_case(c, backend(), Block{})->work();
  EXPECT_EQ(w.flops, 0.0);
  EXPECT_EQ(w.bytes, 2 * 100 * 31 * element);
  EXPECT_EQ(case_bytes(c), std::uint64_t(2 * 100 * 31 * element)); // the table's count
}

INSTANTIATE_TEST_SUITE_P(AllBackends, Transpose, ::testing::ValuesIn(all_backend_precisions()),
                         backend_precision_name);

TEST(TransposeDeviceBytes, TheTableSaturatesInsteadOfWrapping) {
  Case c;
  c.family = "transpose";
  c.precision = Precision::float64;
  c.m = c.n = std::int64_t(1) << 31;
  EXPECT_EQ(case_bytes(c), kTooLarge);
}

} // namespace
} // namespace miniapp
