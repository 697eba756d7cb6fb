#pragma once
// How many timed samples a case run on one rank has (core/timing.hpp): its repetitions on host
// backends; on a GPU at least that many, which together last gpu_span_seconds (in each round).
#include "core/backends.hpp"
#include "core/result.hpp"
#include "core/timing.hpp"

#include <gtest/gtest.h>

#include <cstddef>
#include <string>

namespace miniapp {

inline void expect_timed_samples(const CaseResult& r, std::size_t reps, const std::string& backend,
                                 int rounds = 1) {
  ASSERT_GE(r.launches_per_sample, 1);
  if (!is_gpu_backend(backend)) {
    EXPECT_EQ(r.compute.samples.size(), reps * std::size_t(rounds));
    return;
  }
  EXPECT_GE(r.compute.samples.size(), reps * std::size_t(rounds));
  if (rounds > 1)
    return; // each round chains its own count of launches; the row keeps the first round's
  double timed = 0;
  for (double t : r.compute.samples)
    timed += t * r.launches_per_sample;
  EXPECT_GE(timed, 0.999 * gpu_span_seconds);
}

} // namespace miniapp
