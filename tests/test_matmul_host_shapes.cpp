// Every host shape of tiled_rb (kernels/matmul_shapes.hpp), not only the default the family
// tests run: each element type, both tiles, sizes that leave edge blocks in M and N, a tile
// height that is not a multiple of TM, and K over several of the host kernel's K chunks (the
// sums go to C and come back between chunks). Small integer inputs keep every sum exact in
// float32, so the result must equal the integer reference exactly.
#include "kernels/matmul.hpp"

#include <Kokkos_Core.hpp>
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace miniapp::kernels {
namespace {

template <class T>
void expect_every_shape_exact(int tile) {
  using Host = Kokkos::DefaultHostExecutionSpace;
  using Matrix = Kokkos::View<T**, Kokkos::LayoutRight, Host>;
  const std::vector<std::array<int, 3>> sizes = {{257, 263, 600}, {129, 200, 9}, {7, 13, 300}};
  for (auto [m, n, k] : sizes) {
    Matrix A("A", m, k), B("B", k, n), C("C", m, n);
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
      Kokkos::deep_copy(C, T(-12345)); // no kernel result: every element must be written
      typename Matrix::const_type a = A, b = B;
      matmul_tiled_rb(Host(), a, b, C, tile, 0, shape);
      Host().fence();
      int bad = 0;
      for (int i = 0; i < m; ++i)
        for (int j = 0; j < n; ++j)
          if (std::int64_t(C(i, j)) != ref[std::size_t(i) * n + j] && bad++ < 3)
            ADD_FAILURE() << "shape " << shape << " tile " << tile << " " << m << "x" << n << "x"
                          << k << ": C(" << i << ", " << j << ") = " << C(i, j) << ", expected "
                          << ref[std::size_t(i) * n + j];
    }
  }
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
TEST(MatmulGpuShapes, NamesAreDistinctAndSayThePartialUnroll) {
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
}

} // namespace
} // namespace miniapp::kernels
