// compat.hpp's arithmetic that holds on every build (the CUDA calls around it run on GPUs only).
#include "core/compat.hpp"

#include <gtest/gtest.h>

namespace {

using miniapp::compat::kokkos3_team_shmem;
using miniapp::compat::scratch_carveout_percent;

constexpr int kH100SharedPerSm = 233472; // cudaDevAttrMaxSharedMemoryPerMultiprocessor, 228 KiB

// The carveout must hold every resident team, or fitting it would cost occupancy: the percentage,
// turned back into bytes, is at least what the teams ask for.
TEST(ScratchCarveout, HoldsEveryResidentTeam) {
  for (int blocks : {1, 2, 4, 10, 16, 32})
    for (int team : {64, 128, 256, 1024})
      for (std::size_t bytes : {std::size_t(0), std::size_t(4224), std::size_t(33040)}) {
        const int pct = scratch_carveout_percent(blocks, team, bytes, kH100SharedPerSm);
        const std::size_t need = std::size_t(blocks) * (kokkos3_team_shmem(team, bytes) + 1024);
        ASSERT_GE(pct, 0);
        ASSERT_LE(pct, 100);
        if (need <= std::size_t(kH100SharedPerSm))
          EXPECT_GE(std::size_t(pct) * kH100SharedPerSm, 100 * need)
              << blocks << " teams of " << team << " threads, " << bytes << " bytes";
        else
          EXPECT_EQ(pct, 100);
      }
}

// tiled_rb float64's one 256-thread team per SM, 33040 bytes of scratch (two stages of 8 x 130
// and 8 x 128 doubles, and 16 of alignment), leaves most of the L1: 16% of 228 KiB, which the
// driver rounds up to its 64 KiB configuration (ncu on an H100: 65 KiB instead of 233).
TEST(ScratchCarveout, OneGemmTeamLeavesMostOfTheL1) {
  EXPECT_EQ(kokkos3_team_shmem(256, 33040), std::size_t(8 * 258 + 33040 + 128));
  EXPECT_EQ(scratch_carveout_percent(1, 256, 33040, kH100SharedPerSm), 16);
}

// Nothing known (no resident team, no device figure): the largest carveout, Kokkos's own choice.
TEST(ScratchCarveout, UnknownOccupancyKeepsTheLargest) {
  EXPECT_EQ(scratch_carveout_percent(0, 128, 4224, kH100SharedPerSm), 100);
  EXPECT_EQ(scratch_carveout_percent(4, 128, 4224, 0), 100);
}

} // namespace
