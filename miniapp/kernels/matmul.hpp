#pragma once
// matmul family: C = A * B for any M, N, K (row-major).
//   flat      one work item per output element (C++ AMP parallel_for_each / OpenCL matmul_naive)
//   tiled     the classic algorithm: a team per TWxTW output tile, A and B tiles in team scratch
//             (tile_static / __local), team_barrier() after loading and before the next load
//   tiled_rb  larger tiles, each thread keeps a small block of outputs in registers: a pipelined
//             GPU shape, a scratch-free host shape, and a general kernel for user-fixed teams
// Kernels are labelled miniapp::matmul::<variant> for Kokkos Tools.
//
// One header per kernel (matmul_flat.hpp, matmul_tiled.hpp,
// matmul_tiled_rb_{general,gpu,host}.hpp); this one dispatches tiled_rb to its shape and backend.
#include "kernels/matmul_flat.hpp"
#include "kernels/matmul_padded.hpp"
#include "kernels/matmul_shapes.hpp"
#include "kernels/matmul_tiled.hpp"
#include "kernels/matmul_tiled_rb_general.hpp"
#include "kernels/matmul_tiled_rb_gpu.hpp"
#include "kernels/matmul_tiled_rb_host.hpp"

#include <Kokkos_Core.hpp>

#include <stdexcept>
#include <string>
#include <type_traits>

namespace miniapp::kernels {

// The pipelined GPU kernel of shape S for C = A * B (A and B may be padded operands, larger than
// C needs: matmul_padded.hpp): split-K where the tiles leave the device idle (split_k_for), its
// parts' sums in workspace; 16-byte loads where rows allow them; the kernel without bounds tests
// where A and B are whole tiles (types without 16-byte loads: at least a tile each way). Returns
// the parts K was split into.
template <class S, class Exec, class VA, class VB, class VC>
int matmul_tiled_rb_shape(const Exec& exec, const VA& A, const VB& B, const VC& C) {
  using T = typename VC::non_const_value_type;
  const bool vec = vector_loads_for<T> && vector_loads_fit<T>(A, B);
  int head = 0; // rows of C before a split tail (split_k_tail), all of K in one launch
  int splits = tiled_rb_gpu_choice(C.extent(0), C.extent(1), A.extent(1), S::BM, S::BN, S::BK,
                                   S::Teams, 0, multiprocessors(exec), &head)
                   .split_k; // (A and B as given: padded already where they are)
  T* partials = splits > 1 ? kernel_workspace<T, typename Exec::memory_space, 1>(
                                 std::size_t(splits) * (C.extent(0) - head) * C.extent(1))
                           : nullptr;
  if (!partials)
    splits = 1, head = 0; // (no memory for the parts: one team a tile)
  auto with = [&](auto vec_c, auto full_c) {
    auto launch = [&](int parts, T* sums, int row_begin, int row_end) {
      matmul_tiled_rb_pipelined<S::BM, S::BN, S::BK, S::TM, S::TN, S::Teams, S::KU, S::Mode,
                                decltype(vec_c)::value, decltype(full_c)::value>(
          exec, A, B, C, parts, sums, row_begin, row_end);
    };
    if (head > 0)
      launch(1, nullptr, 0, head);
    launch(splits, partials, head, -1);
  };
  using Yes = std::true_type;
  using No = std::false_type;
  // Whole tiles take the kernel without bounds tests: where the type has 16-byte loads, only
  // with them (three kernels a shape, not four); other types at any size of a tile or more, edge
  // tiles moved back inside A and B (full_kernel_fits).
  if constexpr (vector_loads_for<T>) { // (no Vec kernel compiled for the others)
    const bool full = tiles_are_whole<S::BM, S::BN, S::BK>(A, B);
    vec ? (full ? with(Yes{}, Yes{}) : with(Yes{}, No{})) : with(No{}, No{});
  } else {
    full_kernel_fits<S::BM, S::BN>(A, B) ? with(No{}, Yes{}) : with(No{}, No{});
  }
  return splits;
}

// Tile shapes per backend, element type and tile (64 or 128): kernels/matmul_shapes.hpp names
// them; `shape` picks one ("" = the list's first, its default). GPUs: matmul_tiled_rb_pipelined
// with the shape's thread grid (the general kernel when the user fixes another team size).
// Host: matmul_tiled_rb_host, one thread per team unless the user fixes the team size.
// Returns what the launch chose (split-K parts and padding on GPUs; on host backends one part,
// and whether A and B ran as the shared zero-padded panels).
template <class Exec, class VA, class VB, class VC>
LaunchChoice matmul_tiled_rb(const Exec& exec, const VA& A, const VB& B, const VC& C, int tile,
                             int team_size = 0, const std::string& shape = "") {
  using T = typename VC::non_const_value_type;
  using Elem = std::conditional_t<std::is_floating_point_v<T>, T, int>;
  constexpr bool host =
      Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename Exec::memory_space>::accessible;
  bool found = false;
  LaunchChoice ran{1, false};
  if constexpr (host) {
    auto run = [&](auto s) {
      using S = decltype(s);
      ran.padded = matmul_tiled_rb_host<S::BM, S::BN, S::TM, S::TN>(exec, A, B, C, team_size);
    };
    found = tile == 64 ? host_shapes_t<Elem, 64>::visit(shape, run)
                       : host_shapes_t<Elem, 128>::visit(shape, run);
  } else if (team_size > 0) {
    // A team size the user chose: the general kernel, which accepts any team (with 256, the
    // GPU kernel of runs 1-5, kept for comparison: docs/performance.md).
    if (tile == 64)
      matmul_tiled_rb_impl<64, 64, 16, 4, 4, true>(exec, A, B, C, team_size);
    else
      matmul_tiled_rb_impl<128, 128, 16, 8, 8, true>(exec, A, B, C, team_size);
    found = true;
  } else {
    auto run = [&](auto s) {
      using S = decltype(s);
      if constexpr (vector_loads_for<T>) {
        // Edge tiles, or rows that are not whole 16-byte runs: zero-padded copies of A and B
        // take the whole-tile kernel with 16-byte loads (matmul_padded.hpp says what it gains).
        // (tiled_rb_gpu_choice says so from the sizes; strided or unaligned operands also pad.)
        const bool pad = tiled_rb_gpu_choice(C.extent(0), C.extent(1), A.extent(1), S::BM, S::BN,
                                             S::BK, S::Teams, Fragment<T>::width, 1)
                             .padded;
        if (pad || !tiles_are_whole<S::BM, S::BN, S::BK>(A, B) || !vector_loads_fit<T>(A, B)) {
          Matrix<T, typename Exec::memory_space> Ap, Bp;
          if (pad_operands(exec, A, B, S::BM, S::BN, S::BK, Ap, Bp)) {
            ran = {matmul_tiled_rb_shape<S>(exec, Ap, Bp, C), true};
            return;
          }
        }
      }
      ran = {matmul_tiled_rb_shape<S>(exec, A, B, C), false};
    };
    found = tile == 64 ? gpu_shapes_t<Elem, 64>::visit(shape, run)
                       : gpu_shapes_t<Elem, 128>::visit(shape, run);
  }
  if (!found) // the plan checks shapes against the same lists: a bug if this is reached
    throw std::invalid_argument("miniapp::matmul::tiled_rb: no shape '" + shape + "' for tile " +
                                std::to_string(tile) + " on this backend");
  return ran;
}

} // namespace miniapp::kernels
