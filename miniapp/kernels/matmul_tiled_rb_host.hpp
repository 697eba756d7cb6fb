#pragma once
// matmul tiled_rb, the host shape: no scratch, each thread blocks of sums in vector registers;
// labelled miniapp::matmul::tiled_rb.
#include "kernels/launch_limits.hpp"
#include "kernels/matmul_common.hpp"

#include <Kokkos_Core.hpp>

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

// The host shape of tiled_rb: no scratch. Each thread walks TM x TN blocks of its team's BM x BN
// tile and keeps a block's sums in registers, TM rows of TN / L vectors of L lanes (6 x 16 floats:
// twelve of the sixteen AVX2 registers); per k it broadcasts TM elements of A and loads TN / L
// vectors of B. K is walked in chunks of KC (a block's KC x TN piece of B and TM x KC piece of A
// stay in L1 across the chunk; the tile's KC x BN panel of B in L2 across the block rows); the
// sums go to C after the first chunk and are read back for the next. Rows past the tile or the
// matrix repeat its last row (computed, never stored), so BM need not be a multiple of TM;
// blocks reaching past N take the scalar edge path.
template <int BM, int BN, int TM, int TN, class Exec, class VA, class VB, class VC>
void matmul_tiled_rb_host(const Exec& exec, const VA& A, const VB& B, const VC& C, int team_size) {
  using T = typename VC::non_const_value_type;
  using V = host_vector_t<T, TN>;
  constexpr int L = int(sizeof(V) / sizeof(T)), NV = TN / L;
  static_assert(TN % L == 0, "a block row is whole vectors");
  constexpr int KC = 256;
  using Policy = Kokkos::TeamPolicy<Exec>;
  using Member = typename Policy::member_type;
  constexpr int GR = (BM + TM - 1) / TM, GC = BN / TN, blocks = GR * GC;
  static_assert(BN % TN == 0, "a tile row is whole blocks");
  const int M = C.extent(0), N = C.extent(1), K = A.extent(1);
  const int tiles_n = (N + BN - 1) / BN;
  const int league = ((M + BM - 1) / BM) * tiles_n;
  const std::size_t lda = A.stride(0), ldb = B.stride(0), ldc = C.stride(0);
  const T* a_ptr = A.data();
  const T* b_ptr = B.data();
  T* c_ptr = C.data();

  auto body = KOKKOS_LAMBDA(const Member& team) {
    const int row0 = (team.league_rank() / tiles_n) * BM;
    const int col0 = (team.league_rank() % tiles_n) * BN;
    const int row_end = row0 + BM < M ? row0 + BM : M;
    for (int k0 = 0; k0 < K; k0 += KC) {
      const int k1 = k0 + KC < K ? k0 + KC : K;
      for (int blk = team.team_rank(); blk < blocks; blk += team.team_size()) {
        const int r0 = row0 + (blk / GC) * TM, c0 = col0 + (blk % GC) * TN;
        if (r0 >= row_end || c0 >= N)
          continue;
        if (c0 + TN <= N) { // all TN columns inside: the vector micro-kernel
          const T* a_row[TM];
          T* c_row[TM];
          for (int i = 0; i < TM; ++i) {
            const std::size_t r = std::size_t(r0 + i < row_end ? r0 + i : row_end - 1);
            a_row[i] = a_ptr + r * lda;
            c_row[i] = c_ptr + r * ldc + c0;
          }
          V acc[TM][NV];
          for (int i = 0; i < TM; ++i)
            for (int j = 0; j < NV; ++j)
              if (k0 == 0)
                acc[i][j] = V{};
              else {
                V sums;
                host_vector_load(sums, c_row[i] + j * L);
                acc[i][j] = sums;
              }
          for (int k = k0; k < k1; ++k) {
            V b[NV];
            for (int j = 0; j < NV; ++j)
              host_vector_load(b[j], b_ptr + std::size_t(k) * ldb + c0 + j * L);
            for (int i = 0; i < TM; ++i) {
              const T a = a_row[i][k]; // broadcast by the vector product
              for (int j = 0; j < NV; ++j)
                acc[i][j] += a * b[j];
            }
          }
          for (int i = 0; i < TM && r0 + i < row_end; ++i)
            for (int j = 0; j < NV; ++j) {
              const V sums = acc[i][j]; // a copy: acc's own address never escapes
              host_vector_store(c_row[i] + j * L, sums);
            }
        } else { // edge block: columns past the matrix contribute zeros
          T acc[TM][TN];
          for (int i = 0; i < TM; ++i)
            for (int j = 0; j < TN; ++j)
              acc[i][j] = k0 == 0 || r0 + i >= row_end || c0 + j >= N
                              ? T(0)
                              : c_ptr[std::size_t(r0 + i) * ldc + c0 + j];
          for (int k = k0; k < k1; ++k)
            for (int i = 0; i < TM; ++i) {
              const T a = r0 + i < row_end ? a_ptr[std::size_t(r0 + i) * lda + k] : T(0);
              for (int j = 0; j < TN; ++j)
                acc[i][j] += a * (c0 + j < N ? b_ptr[std::size_t(k) * ldb + c0 + j] : T(0));
            }
          for (int i = 0; i < TM && r0 + i < row_end; ++i)
            for (int j = 0; j < TN && c0 + j < N; ++j)
              c_ptr[std::size_t(r0 + i) * ldc + c0 + j] = acc[i][j];
        }
      }
    }
  };
  Policy probe(exec, league, Kokkos::AUTO);
  const int ts = fit_team_size(probe, body, 1, team_size, "miniapp::matmul::tiled_rb");
  Kokkos::parallel_for("miniapp::matmul::tiled_rb", Policy(exec, league, ts), body);
}

} // namespace miniapp::kernels
