// The host instruction-set levels recorded in results.json (core/host_isa.hpp).
#include "core/host_isa.hpp"

#include <gtest/gtest.h>

namespace miniapp {
namespace {

TEST(HostIsa, LevelNamesRoundTrip) {
  for (int level = 1; level <= 4; ++level)
    EXPECT_EQ(x86_64_level(x86_64_level_name(level)), level);
  EXPECT_EQ(x86_64_level("aarch64"), 0);
  EXPECT_EQ(x86_64_level_name(5), "");
}

TEST(HostIsa, UnderUseOnlyWhenTheCpuOffersMoreThanTheBuild) {
  EXPECT_NE(isa_under_use("x86-64", "x86-64-v3")
                .find("built for x86-64 on a CPU offering "
                      "x86-64-v3"),
            std::string::npos);
  EXPECT_NE(isa_under_use("x86-64-v3", "x86-64-v4"), "");
  EXPECT_EQ(isa_under_use("x86-64-v4", "x86-64-v4"), "");
  EXPECT_EQ(isa_under_use("x86-64-v4", "x86-64-v3"), ""); // would not run: not an under-use
  EXPECT_EQ(isa_under_use("aarch64", "aarch64"), "");
  EXPECT_EQ(isa_under_use("", "x86-64-v4"), ""); // a run recorded before the field existed
}

// OpenBLAS's DYNAMIC_ARCH falls back to its Prescott kernels on a CPU model it does not know (a
// KVM guest "Intel Xeon Processor" with AVX-512: SGEMM 1024 at 43 GFLOP/s, 211-216 with
// OPENBLAS_CORETYPE=SkylakeX); the configuration string results.json records names the core.
TEST(HostIsa, BlasKernelsOlderThanTheCpuAreNamedWithTheCoreToAskFor) {
  const std::string prescott =
      "OpenBLAS 0.3.21 NO_LAPACKE DYNAMIC_ARCH NO_AFFINITY Prescott MAX_THREADS=64";
  EXPECT_EQ(openblas_core_level(prescott), 1);
  EXPECT_EQ(openblas_core_level("OpenBLAS 0.3.21 DYNAMIC_ARCH Sandybridge MAX_THREADS=64"), 2);
  EXPECT_EQ(openblas_core_level("OpenBLAS 0.3.21 DYNAMIC_ARCH Haswell MAX_THREADS=64"), 3);
  EXPECT_EQ(openblas_core_level("OpenBLAS 0.3.21 DYNAMIC_ARCH Zen MAX_THREADS=64"), 3);
  EXPECT_EQ(openblas_core_level("OpenBLAS 0.3.26 DYNAMIC_ARCH SkylakeX MAX_THREADS=512"), 4);
  EXPECT_EQ(openblas_core_level("OpenBLAS 0.3.21 DYNAMIC_ARCH neoversen1 MAX_THREADS=64"), 0);
  EXPECT_EQ(openblas_core_level("none (the native kernel)"), 0);

  const std::string w = blas_under_use(prescott, "x86-64-v4");
  EXPECT_NE(w.find("OpenBLAS runs its Prescott kernels, made for less than this CPU's x86-64-v4"),
            std::string::npos)
      << w;
  EXPECT_NE(w.find("OPENBLAS_CORETYPE=SkylakeX"), std::string::npos) << w;
  EXPECT_NE(blas_under_use(prescott, "x86-64-v3").find("OPENBLAS_CORETYPE=Haswell"),
            std::string::npos);
  EXPECT_NE(blas_under_use("OpenBLAS Haswell", "x86-64-v4"), "");
  EXPECT_EQ(blas_under_use("OpenBLAS SkylakeX", "x86-64-v4"), "");
  EXPECT_EQ(blas_under_use("OpenBLAS Haswell", "x86-64-v3"), "");
  EXPECT_EQ(blas_under_use(prescott, "x86-64"), ""); // a CPU of the kernels' own level
  EXPECT_EQ(blas_under_use(prescott, "aarch64"), "");
  EXPECT_EQ(blas_under_use(prescott, ""), ""); // a run recorded before host_isa existed
}

// This test program is built with the project's flags: the build preset under test decides what
// it was built for, and the CPU it runs on offers at least that (else it could not run).
TEST(HostIsa, ThisBinaryRunsOnWhatItWasBuiltFor) {
  const HostIsa isa = host_isa();
  ASSERT_FALSE(isa.built_for.empty());
  ASSERT_FALSE(isa.offered.empty());
#if defined(__x86_64__)
  EXPECT_GE(isa.built_level, 1);
  EXPECT_GE(isa.offered_level, isa.built_level);
#ifdef MINIAPP_NATIVE_TARGET
  EXPECT_FALSE(isa.under_uses()) << isa.built_for << " on " << isa.offered;
#endif
#endif
}

} // namespace
} // namespace miniapp
