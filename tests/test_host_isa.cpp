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
