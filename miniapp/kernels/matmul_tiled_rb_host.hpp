#pragma once
// matmul tiled_rb, the host shape: A and B packed into cache-sized panels in team scratch, each
// thread blocks of sums in vector registers; labelled miniapp::matmul::tiled_rb.
#include "kernels/launch_limits.hpp"
#include "kernels/matmul_common.hpp"
#include "kernels/matmul_padded.hpp"

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace miniapp::kernels {

// The host micro-kernel's vector of sums: a GNU vector (GCC, Clang) of the widest width the
// target ISA has, at most the block's row of TN elements; elsewhere, and in CUDA/HIP translation
// units (whose host tiled_rb runs on Serial, not a performance case), T itself. Why not plain
// loops over T acc[TM][TN]: GCC 12 at -O3 unrolls the i and j loops first, then vectorises the k
// loop as TM x TN reductions, four k at a time with shuffles of A (no ymm FMA at all); vector
// types keep the vectorisation over j and each row of sums in registers.
#if defined(__GNUC__) && !defined(__CUDACC__) && !defined(__HIPCC__)
#if defined(__AVX512F__)
inline constexpr int host_vector_bytes = 64;
#elif defined(__AVX__)
inline constexpr int host_vector_bytes = 32;
#else
inline constexpr int host_vector_bytes = 16;
#endif
template <class T, int Bytes>
struct HostVector {
  typedef T type __attribute__((vector_size(Bytes)));
};
template <class T, int TN>
using host_vector_t =
    typename HostVector<T, (TN * int(sizeof(T)) < host_vector_bytes ? TN * int(sizeof(T))
                                                                    : host_vector_bytes)>::type;
#else
template <class T, int TN>
using host_vector_t = T;
#endif

// Unaligned vector load and store of L contiguous elements (memcpy: the portable spelling, one
// vmovups); plain assignments where the vector is T itself, so CUDA/HIP units call no host-only
// function from the __host__ __device__ lambda.
template <class V, class T>
KOKKOS_INLINE_FUNCTION void host_vector_load(V& v, const T* p) {
  if constexpr (std::is_same_v<V, T>)
    v = *p;
  else
    std::memcpy(&v, p, sizeof(V));
}
template <class V, class T>
KOKKOS_INLINE_FUNCTION void host_vector_store(T* p, const V& v) {
  if constexpr (std::is_same_v<V, T>)
    *p = v;
  else
    std::memcpy(p, &v, sizeof(V));
}

// One team's packed operands in team scratch (level 1: on host backends ordinary, cache-resident
// memory), 64-byte aligned: A's GR micro-panels of TM x KC (pack_a_micro_panel), then B's
// GC = BN / TN micro-panels of KC x TN, each contiguous. KC: a float micro-panel of 32 floats (two
// AVX-512 or four AVX2 vectors a row) is 32 KiB, most of a 48 KiB L1d; a double one (16 doubles)
// too. The shared panels of matmul_tiled_rb_host_shared_panels have the same KC, GR and layout.
template <class T, int BM, int BN, int TM, int TN>
struct HostPanels {
  static constexpr int KC = 256;
  static constexpr int GR = (BM + TM - 1) / TM; // block rows: the last may reach past the tile
  static constexpr std::size_t a_elements = std::size_t(GR) * TM * KC;
  static constexpr std::size_t b_elements = std::size_t(KC) * BN;
  static constexpr std::size_t align = 64;
  static constexpr std::size_t bytes = sizeof(T) * (a_elements + b_elements) + align;
  static KOKKOS_INLINE_FUNCTION T* a_panel(void* scratch) {
    const std::uintptr_t p = reinterpret_cast<std::uintptr_t>(scratch);
    return reinterpret_cast<T*>((p + align - 1) / align * align);
  }
};

// A TM x KC micro-panel of A, column by column: element (i, k) at k * TM + i, so that a block's
// k step broadcasts TM consecutive elements (one stream, not TM rows KC apart); zeros in the rows
// past the `valid` ones and the columns past kc. `a` is A's row of the micro-panel's first row, at
// column k0.
template <int TM, class T>
KOKKOS_INLINE_FUNCTION void pack_a_micro_panel(T* dst, const T* a, std::size_t lda, int valid,
                                               int kc) {
  for (int i = 0; i < TM; ++i) {
    const T* src = a + std::size_t(i) * lda;
    if (i < valid)
      for (int k = 0; k < kc; ++k)
        dst[k * TM + i] = src[k];
    else
      for (int k = 0; k < kc; ++k)
        dst[k * TM + i] = T(0);
  }
}

// A KC x TN micro-panel of B: row k of it is B(k, col .. col + TN), zeros past the `valid`
// columns that lie inside the matrix. `b` is B's row k0.
template <int TN, class T>
KOKKOS_INLINE_FUNCTION void pack_micro_panel(T* dst, const T* b, std::size_t ldb, int col,
                                             int valid, int kc) {
  if (valid >= TN) {
    for (int k = 0; k < kc; ++k)
      for (int j = 0; j < TN; ++j) // a fixed trip count: whole-vector copies
        dst[k * TN + j] = b[k * ldb + col + j];
  } else if (valid > 0) {
    for (int k = 0; k < kc; ++k)
      for (int j = 0; j < TN; ++j)
        dst[k * TN + j] = j < valid ? b[k * ldb + col + j] : T(0);
  }
}

// A row of a block's sums from C (`valid` of its TN columns inside the matrix, the rest zero) and
// back (only the valid ones): vector loads and stores when the whole row is inside.
template <int NV, int L, class V, class T>
KOKKOS_INLINE_FUNCTION void load_sums(V (&sums)[NV], const T* c, int valid) {
  if (valid == NV * L) {
    for (int j = 0; j < NV; ++j)
      host_vector_load(sums[j], c + j * L);
    return;
  }
  T part[NV * L] = {};
  for (int j = 0; j < valid; ++j)
    part[j] = c[j];
  for (int j = 0; j < NV; ++j)
    host_vector_load(sums[j], part + j * L);
}
template <int NV, int L, class V, class T>
KOKKOS_INLINE_FUNCTION void store_sums(T* c, const V (&sums)[NV], int valid) {
  if (valid == NV * L) {
    for (int j = 0; j < NV; ++j)
      host_vector_store(c + j * L, sums[j]);
    return;
  }
  T part[NV * L];
  for (int j = 0; j < NV; ++j)
    host_vector_store(part + j * L, sums[j]);
  for (int j = 0; j < valid; ++j)
    c[j] = part[j];
}

// One TM x TN block of C over one chunk of kc k steps, its sums in registers: TM rows of TN / L
// vectors of L lanes (6 x 2 AVX-512 or 6 x 2 AVX2 vectors of sums), per k broadcasting TM
// elements of A and loading TN / L vectors of B. `a`: the block's TM x KC micro-panel of A
// (pack_a_micro_panel), `b`: its KC x TN micro-panel of B (pack_micro_panel). The sums start at
// zero in the first chunk and are read back from C in the others, so every element of C sums its
// k terms in order (exact validation unchanged); only the sums that fall inside C are stored.
template <int TM, int TN, class V, class T>
KOKKOS_INLINE_FUNCTION void host_block(T* c_block, std::size_t ldc, const T* a, const T* b, int kc,
                                       bool first, int valid_rows, int valid_cols) {
  constexpr int L = int(sizeof(V) / sizeof(T)), NV = TN / L;
  V acc[TM][NV];
  for (int i = 0; i < TM; ++i)
    for (int j = 0; j < NV; ++j)
      acc[i][j] = V{};
  if (!first)
    for (int i = 0; i < valid_rows; ++i)
      load_sums<NV, L>(acc[i], c_block + i * ldc, valid_cols);
  for (int k = 0; k < kc; ++k) {
    V bv[NV];
    for (int j = 0; j < NV; ++j)
      host_vector_load(bv[j], b + k * TN + j * L);
    for (int i = 0; i < TM; ++i) {
      const T ai = a[k * TM + i]; // broadcast by the vector product
      for (int j = 0; j < NV; ++j)
        acc[i][j] += ai * bv[j];
    }
  }
  for (int i = 0; i < valid_rows; ++i)
    store_sums<NV, L>(c_block + i * ldc, acc[i], valid_cols);
}

// The host shape of tiled_rb with its packing in the team (the GotoBLAS loop order within a
// team): K is walked in chunks of KC; for each chunk the team copies its tile's KC x BN slice of
// B into contiguous KC x TN micro-panels, one per column block, and its BM x KC slice of A into
// TM x KC micro-panels, both in team scratch; then each thread walks TM x TN blocks (host_block),
// rows fastest. Why pack: read in place, a block's KC x TN piece of B is KC rows a leading
// dimension apart; with a power-of-two N those rows fall into a few cache sets, so the piece
// neither stays in L1 nor the tile's panel in L2, and every block re-reads B from L3 or memory
// (what limited the unpacked kernel at 2048 on 16 cores). Packed, a 32 KiB micro-panel stays in
// L1 for the whole column of blocks and A's panel in L2 for the whole tile. The packed panels are
// zero past the matrix (columns past N, rows past M or the tile), so every block runs the vector
// micro-kernel. Every tile packs its own panels: A is copied once per column of tiles and B once
// per row of tiles; matmul_tiled_rb_host packs them once for all tiles where it can.
template <int BM, int BN, int TM, int TN, class Exec, class VA, class VB, class VC>
void matmul_tiled_rb_host_team_packed(const Exec& exec, const VA& A, const VB& B, const VC& C,
                                      int team_size) {
  using T = typename VC::non_const_value_type;
  using V = host_vector_t<T, TN>;
  static_assert(TN % int(sizeof(V) / sizeof(T)) == 0, "a block row is whole vectors");
  static_assert(BN % TN == 0, "a tile row is whole blocks");
  using Policy = Kokkos::TeamPolicy<Exec>;
  using Member = typename Policy::member_type;
  using Panels = HostPanels<T, BM, BN, TM, TN>;
  constexpr int KC = Panels::KC, GR = Panels::GR, GC = BN / TN, blocks = GR * GC;
  const int M = C.extent(0), N = C.extent(1), K = A.extent(1);
  const int tiles_n = (N + BN - 1) / BN;
  const int league = ((M + BM - 1) / BM) * tiles_n;
  const std::size_t lda = A.stride(0), ldb = B.stride(0), ldc = C.stride(0);
  const T* a_ptr = A.data();
  const T* b_ptr = B.data();
  T* c_ptr = C.data();
  check_scratch<Policy>("miniapp::matmul::tiled_rb", Panels::bytes, 1);

  auto body = KOKKOS_LAMBDA(const Member& team) {
    T* a_pack = Panels::a_panel(team.team_scratch(1).get_shmem(Panels::bytes));
    T* b_pack = a_pack + Panels::a_elements;
    const int row0 = (team.league_rank() / tiles_n) * BM;
    const int col0 = (team.league_rank() % tiles_n) * BN;
    const int rows = (row0 + BM < M ? row0 + BM : M) - row0;
    const int cols = (col0 + BN < N ? col0 + BN : N) - col0;
    const int rank = team.team_rank(), nthreads = team.team_size();
    for (int k0 = 0; k0 < K || k0 == 0; k0 += KC) { // K = 0: C = 0
      const int kc = k0 + KC < K ? KC : K - k0;
      if (k0 > 0)
        team.team_barrier(); // every block is done with the previous chunk's panels
      for (int rb = rank; rb < GR; rb += nthreads) // rows past the tile or M: zeros
        pack_a_micro_panel<TM>(a_pack + std::size_t(rb) * TM * KC,
                               a_ptr + std::size_t(row0 + (rb * TM < rows ? rb * TM : 0)) * lda +
                                   k0,
                               lda, rows - rb * TM, kc);
      for (int g = rank; g < GC; g += nthreads)
        pack_micro_panel<TN>(b_pack + std::size_t(g) * KC * TN, b_ptr + std::size_t(k0) * ldb, ldb,
                             col0 + g * TN, cols - g * TN, kc);
      team.team_barrier();
      for (int blk = rank; blk < blocks; blk += nthreads) {
        const int g = blk / GR, rb = blk % GR; // rows fastest: B's micro-panel stays in L1
        const int r0 = rb * TM, c0 = g * TN;   // within the tile
        if (r0 >= rows || c0 >= cols)
          continue;
        host_block<TM, TN, V>(c_ptr + std::size_t(row0 + r0) * ldc + col0 + c0, ldc,
                              a_pack + std::size_t(rb) * TM * KC, b_pack + std::size_t(g) * KC * TN,
                              kc, k0 == 0, rows - r0 < TM ? rows - r0 : TM,
                              cols - c0 < TN ? cols - c0 : TN);
      }
    }
  };
  launch_with_scratch<Policy>("miniapp::matmul::tiled_rb", exec, league, body, 1, team_size,
                              Panels::bytes, 1);
}

// The host shape of tiled_rb: A and B packed once for the whole product into workspace (per K
// chunk, A's TM x KC micro-panels and B's KC x TN ones, zero past the matrix), then a team per
// tile of GR x (BN / TN) blocks (GR * TM rows, BN columns) walks its blocks as the team-packed
// kernel does, reading the shared panels in place. Why: packing in every tile copied A once per
// column of tiles and B once per row of tiles, 2 * M * N * K / 128 elements at tile 128; packed
// once, M * K + K * N. Measured on the 2-core development VM (float32 2048, 2 threads,
// miniapp-bench, OpenBLAS as SkylakeX in the same process at 198-213 GFLOP/s): packing in the
// tile, 149-159 GFLOP/s; the same kernel with the copies left out (wrong sums, for the time
// only) 209-210, A's alone 175-178, B's alone 183-186. Returns false, having done nothing, where
// the workspace cannot be allocated or there is one tile (nothing to share): the caller then runs
// the team-packed kernel.
template <int BM, int BN, int TM, int TN, class Exec, class VA, class VB, class VC>
bool matmul_tiled_rb_host_shared_panels(const Exec& exec, const VA& A, const VB& B, const VC& C,
                                        int team_size) {
  using T = typename VC::non_const_value_type;
  using V = host_vector_t<T, TN>;
  using Panels = HostPanels<T, BM, BN, TM, TN>;
  constexpr int KC = Panels::KC, GR = Panels::GR, GC = BN / TN, blocks = GR * GC;
  const int M = C.extent(0), N = C.extent(1), K = A.extent(1);
  const int row_blocks = (M + TM - 1) / TM, col_blocks = (N + TN - 1) / TN;
  const int chunks = (K + KC - 1) / KC;
  const int tiles_m = (row_blocks + GR - 1) / GR, tiles_n = (col_blocks + GC - 1) / GC;
  if (K == 0 || tiles_m * tiles_n < 2)
    return false;
  const std::size_t a_panel = std::size_t(TM) * KC, b_panel = std::size_t(KC) * TN;
  const std::size_t a_elements = std::size_t(chunks) * row_blocks * a_panel;
  T* a_pack = kernel_workspace<T, typename Exec::memory_space, 0>(
      a_elements + std::size_t(chunks) * col_blocks * b_panel);
  if (!a_pack)
    return false;
  T* b_pack = a_pack + a_elements;
  const std::size_t lda = A.stride(0), ldb = B.stride(0), ldc = C.stride(0);
  const T* a_ptr = A.data();
  const T* b_ptr = B.data();
  T* c_ptr = C.data();
  using Range = Kokkos::RangePolicy<Exec>;
  // A by row block, its chunks in turn (a thread reads its TM rows from start to end); B by chunk,
  // its column blocks in turn (a thread reads whole rows of the chunk).
  Kokkos::parallel_for(
      "miniapp::matmul::tiled_rb", Range(exec, 0, row_blocks * chunks), KOKKOS_LAMBDA(int w) {
        const int rb = w / chunks, p = w % chunks, kc = p * KC + KC < K ? KC : K - p * KC;
        pack_a_micro_panel<TM>(a_pack + (std::size_t(p) * row_blocks + rb) * a_panel,
                               a_ptr + std::size_t(rb) * TM * lda + std::size_t(p) * KC, lda,
                               M - rb * TM, kc);
      });
  Kokkos::parallel_for(
      "miniapp::matmul::tiled_rb", Range(exec, 0, chunks * col_blocks), KOKKOS_LAMBDA(int w) {
        const int p = w / col_blocks, g = w % col_blocks, kc = p * KC + KC < K ? KC : K - p * KC;
        pack_micro_panel<TN>(b_pack + (std::size_t(p) * col_blocks + g) * b_panel,
                             b_ptr + std::size_t(p) * KC * ldb, ldb, g * TN, N - g * TN, kc);
      });
  using Policy = Kokkos::TeamPolicy<Exec>;
  auto body = KOKKOS_LAMBDA(const typename Policy::member_type& team) {
    const int rb0 = (team.league_rank() / tiles_n) * GR, g0 = (team.league_rank() % tiles_n) * GC;
    const int rank = team.team_rank(), nthreads = team.team_size();
    for (int p = 0; p < chunks; ++p) {
      const int kc = p * KC + KC < K ? KC : K - p * KC;
      for (int blk = rank; blk < blocks; blk += nthreads) { // a block stays with one thread
        const int g = g0 + blk / GR, rb = rb0 + blk % GR;   // rows fastest, as above
        if (rb >= row_blocks || g >= col_blocks)
          continue;
        const int r0 = rb * TM, c0 = g * TN;
        host_block<TM, TN, V>(c_ptr + std::size_t(r0) * ldc + c0, ldc,
                              a_pack + (std::size_t(p) * row_blocks + rb) * a_panel,
                              b_pack + (std::size_t(p) * col_blocks + g) * b_panel, kc, p == 0,
                              M - r0 < TM ? M - r0 : TM, N - c0 < TN ? N - c0 : TN);
      }
    }
  };
  launch_with_scratch<Policy>("miniapp::matmul::tiled_rb", exec, tiles_m * tiles_n, body, 1,
                              team_size, 0);
  return true;
}

// Host tiled_rb: the shared panels where it can, else each tile packs its own. Returns whether
// the product ran on the shared, zero-padded copies.
template <int BM, int BN, int TM, int TN, class Exec, class VA, class VB, class VC>
bool matmul_tiled_rb_host(const Exec& exec, const VA& A, const VB& B, const VC& C, int team_size) {
  if (matmul_tiled_rb_host_shared_panels<BM, BN, TM, TN>(exec, A, B, C, team_size))
    return true;
  matmul_tiled_rb_host_team_packed<BM, BN, TM, TN>(exec, A, B, C, team_size);
  return false;
}

} // namespace miniapp::kernels
