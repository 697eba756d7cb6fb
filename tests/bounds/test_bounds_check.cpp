// Proof that the bounds-check build checks: an index one past the end of a View must end the
// process with Kokkos' bounds message, on the host and inside a host kernel (the bounds-check
// build is host-only: a device abort gives no message to match). If this passes, the kernel tests
// run in the same build are checked on every View access.
#include <Kokkos_Core.hpp>
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <exception>

#ifndef KOKKOS_ENABLE_DEBUG_BOUNDS_CHECK
#error "needs a Kokkos built with Kokkos_ENABLE_DEBUG_BOUNDS_CHECK=ON (preset boundscheck)"
#endif

namespace miniapp {
namespace {

// Kokkos reports "View bounds error of view <label> ( <index> < <extent> )". On the host, Kokkos
// 3.4 throws it as std::runtime_error (a kernel test then fails with that message); Kokkos 4
// aborts. Either way the access must not complete: the statement is run so that both end the
// process with the message, and the death test checks that it did.
constexpr const char* kBoundsMessage = "View bounds error of view out_of_bounds";

template <class F>
void die_on_exception(F&& f) {
  try {
    f();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    std::abort();
  }
}

// Not inlined into the test body, so the compiler cannot see the index is constant and out of
// range.
[[gnu::noinline]] int one_past_the_end(const Kokkos::View<int*, Kokkos::HostSpace>& v) {
  return int(v.extent(0));
}

TEST(BoundsCheckDeathTest, HostAccessPastTheEndAborts) {
  Kokkos::View<int*, Kokkos::HostSpace> v("out_of_bounds", 7);
  EXPECT_DEATH(die_on_exception([&] { v(one_past_the_end(v)) = 1; }), kBoundsMessage);
}

TEST(BoundsCheckDeathTest, KernelAccessPastTheEndAborts) {
  using Space = Kokkos::DefaultHostExecutionSpace;
  Kokkos::View<int*, Space::memory_space> v("out_of_bounds", 7);
  const int n = one_past_the_end(v) + 1;
  EXPECT_DEATH(die_on_exception([&] {
                 Kokkos::parallel_for(
                     "miniapp::test::out_of_bounds", Kokkos::RangePolicy<Space>(0, n),
                     KOKKOS_LAMBDA(int i) { v(i) = i; });
                 Kokkos::fence();
               }),
               kBoundsMessage);
}

TEST(BoundsCheck, InBoundsAccessesRunNormally) {
  Kokkos::View<int*, Kokkos::HostSpace> v("in_bounds", 7);
  Kokkos::parallel_for(
      "miniapp::test::in_bounds", Kokkos::RangePolicy<Kokkos::DefaultHostExecutionSpace>(0, 7),
      KOKKOS_LAMBDA(int i) { v(i) = 2 * i; });
  Kokkos::fence();
  EXPECT_EQ(v(6), 12);
}

} // namespace
} // namespace miniapp
