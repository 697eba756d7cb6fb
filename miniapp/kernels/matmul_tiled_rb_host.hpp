#pragma once
// matmul tiled_rb, the host shape: A and B packed into cache-sized panels in team scratch, each
// thread blocks of sums in vector registers; labelled miniapp::matmul::tiled_rb.
#include "kernels/launch_limits.hpp"
#include "kernels/matmul_common.hpp"

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
// memory), 64-byte aligned: A's tile rows, (GR * TM) x KC with rows KC apart, then B's GC = BN / TN
// micro-panels of KC x TN, each contiguous. KC: a float micro-panel of 32 floats (two AVX-512 or
// four AVX2 vectors a row) is 32 KiB, most of a 48 KiB L1d; a double one (16 doubles) too.
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

// dst[0, kc): the n elements of src, then zeros (a row of A's panel; n = 0 past the matrix).
template <class T>
KOKKOS_INLINE_FUNCTION void pack_row(T* dst, const T* src, int n, int kc) {
  for (int k = 0; k < n; ++k)
    dst[k] = src[k];
  for (int k = n; k < kc; ++k)
    dst[k] = T(0);
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

// The host shape of tiled_rb, packed (the GotoBLAS loop order within a team): K is walked in
// chunks of KC; for each chunk the team copies its tile's KC x BN slice of B into contiguous
// KC x TN micro-panels, one per column block, and its BM x KC slice of A into a contiguous
// panel with rows KC apart, both in team scratch; then each thread walks TM x TN blocks, rows
// fastest, keeping a block's sums in registers: TM rows of TN / L vectors of L lanes (6 x 2
// AVX-512 or 6 x 2 AVX2 vectors of sums), per k broadcasting TM elements of A and loading TN / L
// vectors of B. Why pack: read in place, a block's KC x TN piece of B is KC rows a leading
// dimension apart; with a power-of-two N those rows fall into a few cache sets, so the piece
// neither stays in L1 nor the tile's panel in L2, and every block re-reads B from L3 or memory
// (what limited the unpacked kernel at 2048 on 16 cores). Packed, a 32 KiB micro-panel stays in
// L1 for the whole column of blocks and A's panel in L2 for the whole tile; B and A are read
// from memory once per tile and chunk. The packed panels are zero past the matrix (columns past
// N, rows past M or the tile), so every block runs the vector micro-kernel; only the sums that
// fall inside C are stored. The sums go to C after the first chunk and are read back for the next,
// so every element of C sums its k terms in order (exact validation unchanged).
template <int BM, int BN, int TM, int TN, class Exec, class VA, class VB, class VC>
void matmul_tiled_rb_host(const Exec& exec, const VA& A, const VB& B, const VC& C, int team_size) {
  using T = typename VC::non_const_value_type;
  using V = host_vector_t<T, TN>;
  constexpr int L = int(sizeof(V) / sizeof(T)), NV = TN / L;
  static_assert(TN % L == 0, "a block row is whole vectors");
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
      for (int r = rank; r < GR * TM; r += nthreads) // rows past the tile or M: zeros
        pack_row(a_pack + std::size_t(r) * KC,
                 r < rows ? a_ptr + std::size_t(row0 + r) * lda + k0 : a_ptr, r < rows ? kc : 0,
                 kc);
      for (int g = rank; g < GC; g += nthreads)
        pack_micro_panel<TN>(b_pack + std::size_t(g) * KC * TN, b_ptr + std::size_t(k0) * ldb, ldb,
                             col0 + g * TN, cols - g * TN, kc);
      team.team_barrier();
      for (int blk = rank; blk < blocks; blk += nthreads) {
        const int g = blk / GR, rb = blk % GR; // rows fastest: B's micro-panel stays in L1
        const int r0 = rb * TM, c0 = g * TN;   // within the tile
        if (r0 >= rows || c0 >= cols)
          continue;
        const int valid_rows = rows - r0 < TM ? rows - r0 : TM;
        const int valid_cols = cols - c0 < TN ? cols - c0 : TN;
        T* c_block = c_ptr + std::size_t(row0 + r0) * ldc + col0 + c0;
        V acc[TM][NV];
        for (int i = 0; i < TM; ++i)
          for (int j = 0; j < NV; ++j)
            acc[i][j] = V{};
        if (k0 > 0)
          for (int i = 0; i < valid_rows; ++i)
            load_sums<NV, L>(acc[i], c_block + i * ldc, valid_cols);
        const T* a = a_pack + std::size_t(r0) * KC;
        const T* b = b_pack + std::size_t(g) * KC * TN;
        for (int k = 0; k < kc; ++k) {
          V bv[NV];
          for (int j = 0; j < NV; ++j)
            host_vector_load(bv[j], b + k * TN + j * L);
          for (int i = 0; i < TM; ++i) {
            const T ai = a[i * KC + k]; // broadcast by the vector product
            for (int j = 0; j < NV; ++j)
              acc[i][j] += ai * bv[j];
          }
        }
        for (int i = 0; i < valid_rows; ++i)
          store_sums<NV, L>(c_block + i * ldc, acc[i], valid_cols);
      }
    }
  };
  launch_with_scratch<Policy>("miniapp::matmul::tiled_rb", exec, league, body, 1, team_size,
                              Panels::bytes, 1);
}

} // namespace miniapp::kernels
