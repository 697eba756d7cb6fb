#pragma once
// tiled_rb's padded operands (GPU, float32): where M, N or K is not a multiple of the shape's
// tile (BM, BN, BK), or rows are not whole 16-byte runs, A and B are copied, once per product,
// into zero-padded workspace of whole tiles, and the whole-tile kernel runs on the copies (its
// stores masked at C's edges). The copies are part of the product and of its time.
// Why (H200, 2026-11-29, % of cuBLAS SGEMM): with edge tiles inside the kernel (rows of A and
// columns of B clamped, the last k-tile tested) 4000 read 81.5% against 95.4% at 4096, the same
// 1024 tiles; with one-element loads where K or N is odd, 4097 63.9%; 16-byte loads alone
// (K, N padded to multiples of 4, edge tiles kept) 74.2%.
#include "kernels/matmul_common.hpp"
#include "kernels/matrix.hpp"

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <cstdint>
#include <stdexcept>

namespace miniapp::kernels {

// Device workspace, kept between products (a benchmark's repetitions of one size allocate it
// once: allocation, and the synchronisation of freeing, stay out of all but the first); released
// at Kokkos::finalize, before the memory spaces go. One per Slot (0: padded operands, 1: split-K
// parts).
template <class MemSpace, int Slot>
struct KernelWorkspace {
  Kokkos::View<unsigned char*, MemSpace> storage;
  bool release_hooked = false;
};

// `bytes` of it, starting at a 512-byte boundary; nullptr where they cannot be allocated.
template <class MemSpace, int Slot>
unsigned char* kernel_workspace_bytes(std::size_t bytes) {
  constexpr std::size_t align = 512;
  static KernelWorkspace<MemSpace, Slot> w;
  if (!w.release_hooked) {
    Kokkos::push_finalize_hook([] {
      w.storage = {};
      w.release_hooked = false;
    });
    w.release_hooked = true;
  }
  if (w.storage.extent(0) < bytes + align) {
    w.storage = {};
    try {
      w.storage = Kokkos::View<unsigned char*, MemSpace>(
          Kokkos::view_alloc(Kokkos::WithoutInitializing, "miniapp::matmul::tiled_rb workspace"),
          bytes + align);
    } catch (const std::exception&) { // (Kokkos 3.x: RawMemoryAllocationFailure, a runtime_error)
      return nullptr;
    }
  }
  const auto at = reinterpret_cast<std::uintptr_t>(w.storage.data());
  return reinterpret_cast<unsigned char*>((at + align - 1) / align * align);
}

template <class T, class MemSpace, int Slot>
T* kernel_workspace(std::size_t elements) {
  return reinterpret_cast<T*>(kernel_workspace_bytes<MemSpace, Slot>(sizeof(T) * elements));
}

// Copies src (rows x cols) into dst (at least as large), zeros past src's rows and columns. A team
// per row of dst, its threads along the row (reads and writes coalesced, no index division), 16
// bytes a thread where both rows are whole 16-byte runs.
// Why: one work item per element, its row and column from a 64-bit `/` and `%`, cost the padded
// products more than the copies' traffic (H200, 2026-11-29: float32 2049 took 704 us under ncu,
// 554 us of them the product kernel; 4095 read 5 points under 4096, the same 1024 tiles). Element
// by element a thread, the rows ran at about 2.9 TB/s (ncu, 4097), well under the H200's memory.
template <class Exec, class VD, class VS>
void copy_zero_padded(const Exec& exec, const VD& dst, const VS& src) {
  using T = typename VD::non_const_value_type;
  using Policy = Kokkos::TeamPolicy<Exec>;
  const int rows = int(src.extent(0)), cols = int(src.extent(1)), width = int(dst.extent(1));
  constexpr int V = Fragment<T>::width;
  // (host backends, in tests: the team size they choose)
  constexpr bool host =
      Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename Exec::memory_space>::accessible;
  const Policy rows_policy = host ? Policy(exec, int(dst.extent(0)), Kokkos::AUTO)
                                  : Policy(exec, int(dst.extent(0)), row_team_size);
  if (rows_of_fragments<T>(src) && rows_of_fragments<T>(dst)) {
    const T* from = src.data();
    T* to = dst.data();
    const std::size_t from_ld = src.stride(0), to_ld = dst.stride(0);
    Kokkos::parallel_for(
        "miniapp::matmul::tiled_rb", rows_policy,
        KOKKOS_LAMBDA(const typename Policy::member_type& team) {
          const int r = team.league_rank();
          Kokkos::parallel_for(Kokkos::TeamThreadRange(team, width / V), [&](int u) {
            Fragment<T> f = {};
            if (r < rows && u * V < cols)
              f = *reinterpret_cast<const Fragment<T>*>(from + r * from_ld + u * V);
            *reinterpret_cast<Fragment<T>*>(to + r * to_ld + u * V) = f;
          });
        });
    return;
  }
  Kokkos::parallel_for(
      "miniapp::matmul::tiled_rb", rows_policy,
      KOKKOS_LAMBDA(const typename Policy::member_type& team) {
        const int r = team.league_rank();
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, width),
                             [&](int c) { dst(r, c) = r < rows && c < cols ? src(r, c) : T(0); });
      });
}

inline std::size_t round_up(std::size_t x, std::size_t multiple) {
  return (x + multiple - 1) / multiple * multiple;
}

// A (M x K) and B (K x N) padded to Mp x Kp and Kp x Np, the next multiples of bm, bk and bn
// (each a multiple of 16 bytes of T). False, with nothing copied, where the workspace cannot be
// allocated: the caller runs the kernel on A and B themselves.
template <class Exec, class VA, class VB, class VP>
bool pad_operands(const Exec& exec, const VA& A, const VB& B, int bm, int bn, int bk, VP& Ap,
                  VP& Bp) {
  using T = typename VP::non_const_value_type;
  const std::size_t Mp = round_up(A.extent(0), bm), Kp = round_up(A.extent(1), bk),
                    Np = round_up(B.extent(1), bn);
  const std::size_t a_elements = round_up(Mp * Kp, 512 / sizeof(T)); // B at a 512-byte boundary
  T* base = kernel_workspace<T, typename Exec::memory_space, 0>(a_elements + Kp * Np);
  if (!base)
    return false;
  Ap = VP(base, Mp, Kp);
  Bp = VP(base + a_elements, Kp, Np);
  copy_zero_padded(exec, Ap, A);
  copy_zero_padded(exec, Bp, B);
  return true;
}

} // namespace miniapp::kernels
