#pragma once
// SUMMA (van de Geijn & Watts): C = A * B on a P x Q grid. C is cut in row blocks over the
// process rows and column blocks over the process columns; A's columns (k) are cut over the
// process columns and B's rows (k) over the process rows. For each panel of k (at most W wide,
// and never crossing an owner's boundary) the owner of A's panel broadcasts it along its process
// row, the owner of B's panel along its process column, and every rank adds the product of the
// two panels to its C block with the case's kernel variant (flat, tiled, tiled_rb, vendor).
// Our kernels overwrite their output: the first panel writes C, later ones write a partial
// product that the axpby kernel adds to C (C = 1*C + 1*T).
#include "kernels/axpby.hpp"
#include "kernels/case_support.hpp"
#include "kernels/matmul.hpp"
#include "kernels/matrix.hpp"
#include "kernels/vendor_blas.hpp"
#include "parallel/distributed_case.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cmath>
#include <thread>
#include <vector>

namespace miniapp::parallel {

template <class Exec, class T>
class SummaMatmul final : public DistributedCase {
  using Mem = typename Exec::memory_space;
  using Dual = kernels::DualMatrix<T, Exec>;
  using Panel =
      Kokkos::View<T**, Kokkos::LayoutRight, Mem, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;

  struct Step {
    std::int64_t k0, w;
    int owner_a, owner_b; // process column holding A's panel, process row holding B's panel
  };

public:
  SummaMatmul(const Case& c, const ProcessGrid& g, int panel, bool device_aware)
      : c_(c), g_(g), b_(rank_blocks(c, g.shape(), g.row(), g.col())), rows_(b_.rows.size),
        cols_(b_.cols.size), staged_(!Dual::zero_copy && !device_aware),
        A_("miniapp::summa::A", rows_, b_.inner_a.size, c.pinned),
        B_("miniapp::summa::B", b_.inner_b.size, cols_, c.pinned),
        C_("miniapp::summa::C", rows_, cols_, c.pinned) {
    if (c.variant == "vendor")
      check_vendor();
    for (std::int64_t k0 = 0; k0 < c.k;) { // panels never cross an owner's boundary
      const int qa = block_owner(c.k, 1, g.shape().q, k0),
                pb = block_owner(c.k, 1, g.shape().p, k0);
      const std::int64_t w =
          std::min({std::int64_t(panel), block_range(c.k, 1, g.shape().q, qa).end() - k0,
                    block_range(c.k, 1, g.shape().p, pb).end() - k0});
      steps_.push_back({k0, w, qa, pb});
      k0 += w;
    }
    std::int64_t wmax = 0;
    for (const auto& s : steps_)
      wmax = std::max(wmax, s.w);
    Ap_ = Kokkos::View<T*, Mem>(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, "miniapp::summa::A_panel"), rows_ * wmax);
    Bp_ = Kokkos::View<T*, Mem>(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, "miniapp::summa::B_panel"), wmax * cols_);
    if (steps_.size() > 1)
      T_ = kernels::Matrix<T, Mem>(
          Kokkos::view_alloc(Kokkos::WithoutInitializing, "miniapp::summa::partial"), rows_, cols_);
    if (staged_) {
      hAp_ = kernels::allocate_host(sizeof(T) * std::size_t(rows_ * wmax), c.pinned);
      hBp_ = kernels::allocate_host(sizeof(T) * std::size_t(wmax * cols_), c.pinned);
    }
    kernels::fill_input(A_.h, c, 0, c.a_values, b_.rows.begin, b_.inner_a.begin, c.k);
    kernels::fill_input(B_.h, c, 1, c.b_values, b_.inner_b.begin, b_.cols.begin, c.n);
  }

  Work local_work() const override {
    return {2.0 * double(rows_) * double(cols_) * double(c_.k),
            double(sizeof(T)) * double(A_.h.size() + B_.h.size() + C_.h.size())};
  }
  Case local_case() const override {
    Case l = c_;
    l.m = rows_;
    l.n = cols_;
    return l;
  }
  void reset_inputs() override {}
  void upload() override {
    A_.upload();
    B_.upload();
  }
  void download() override { C_.download(); }
  void poison() override {
    Kokkos::deep_copy(C_.d, kernels::poison_value<T>());
    Kokkos::deep_copy(C_.h, kernels::poison_value<T>());
  }
  bool transfers_are_copies() const override { return !Dual::zero_copy; }

  RepTimes run() override {
    RepTimes t;
    for (std::size_t s = 0; s < steps_.size(); ++s) {
      const Step& st = steps_[s];
      Panel Ap(Ap_.data(), rows_, st.w), Bp(Bp_.data(), st.w, cols_);
      const std::int64_t a0 = st.k0 - b_.inner_a.begin, b0 = st.k0 - b_.inner_b.begin;
      share(Ap, g_.col() == st.owner_a, st.owner_a, g_.row_comm(), hAp_.get(), t, [&] {
        Kokkos::deep_copy(Ap, Kokkos::subview(A_.d, Kokkos::ALL, std::make_pair(a0, a0 + st.w)));
      });
      share(Bp, g_.row() == st.owner_b, st.owner_b, g_.col_comm(), hBp_.get(), t, [&] {
        Kokkos::deep_copy(Bp, Kokkos::subview(B_.d, std::make_pair(b0, b0 + st.w), Kokkos::ALL));
      });
      t.compute += timed([&] {
        if (s == 0) {
          product(Ap, Bp, C_.d);
        } else {
          product(Ap, Bp, T_);
          kernels::axpby_flat(exec_, T(1), C_.d, T(1), T_, C_.d);
        }
      });
    }
    return t;
  }

  Validation validate(double rtol) override {
    // The single-rank reference for this block: A's rows and B's columns over the whole k,
    // generated from the global indices, multiplied in float64; bound (K + 2) u |A||B|.
    const std::int64_t K = c_.k;
    std::vector<double> a(rows_ * K), b(K * cols_), abs_a(a.size()), abs_b(b.size());
    for (std::int64_t i = 0; i < rows_; ++i)
      for (std::int64_t k = 0; k < K; ++k)
        a[i * K + k] = double(kernels::input_value<T>(c_, 0, b_.rows.begin + i, k, K, c_.a_values));
    for (std::int64_t k = 0; k < K; ++k)
      for (std::int64_t j = 0; j < cols_; ++j)
        b[k * cols_ + j] =
            double(kernels::input_value<T>(c_, 1, k, b_.cols.begin + j, c_.n, c_.b_values));
    for (std::size_t i = 0; i < a.size(); ++i)
      abs_a[i] = std::fabs(a[i]);
    for (std::size_t i = 0; i < b.size(); ++i)
      abs_b[i] = std::fabs(b[i]);
    std::vector<double> ref(rows_ * cols_), scale(rows_ * cols_);
    const int threads = std::max(1, int(std::thread::hardware_concurrency()) / g_.node_ranks());
    kernels::host_gemm(a.data(), b.data(), ref.data(), rows_, cols_, K, threads);
    kernels::host_gemm(abs_a.data(), abs_b.data(), scale.data(), rows_, cols_, K, threads);
    const double tol = rtol > 0 ? rtol : double(K + 2) * kernels::unit_roundoff<T>();
    return kernels::compare(C_.h, ref, scale, tol, b_.rows.begin, b_.cols.begin);
  }

private:
  template <class F>
  static double timed(F&& f) {
    Kokkos::fence();
    Kokkos::Timer timer;
    f();
    Kokkos::fence();
    return timer.seconds();
  }

  // The owner packs its panel; through host staging unless MPI takes device memory (or the
  // backend's memory is host memory); everyone receives it.
  template <class Pack>
  void share(const Panel& p, bool owner, int root, MPI_Comm comm, void* host, RepTimes& t,
             Pack&& pack) {
    kernels::HostMatrix<T> h(static_cast<T*>(host), p.extent(0), p.extent(1));
    if (owner)
      t.transfer += timed([&] {
        pack();
        if (staged_)
          Kokkos::deep_copy(h, p);
      });
    t.comm += timed([&] {
      broadcast(staged_ ? host : static_cast<void*>(p.data()), std::int64_t(p.size()),
                mpi_type<T>(), root, comm);
    });
    if (!owner && staged_)
      t.transfer += timed([&] { Kokkos::deep_copy(p, h); });
  }

  template <class VC>
  void product(const Panel& A, const Panel& B, const VC& C) {
    if (c_.variant == "flat") {
      kernels::matmul_flat(exec_, A, B, C);
    } else if (c_.variant == "tiled") {
      kernels::matmul_tiled_any(exec_, A, B, C, c_.tile > 0 ? c_.tile : 16, c_.team_size);
    } else if (c_.variant == "tiled_rb") {
      kernels::matmul_tiled_rb(exec_, A, B, C, c_.tile > 0 ? c_.tile : 128, c_.team_size);
    } else if constexpr (std::is_floating_point_v<T>) {
      const std::int64_t m = C.extent(0), n = C.extent(1), k = A.extent(1);
      if constexpr (Dual::zero_copy) {
        kernels::host_gemm(A.data(), B.data(), C.data(), m, n, k, compat::concurrency(exec_));
      }
#ifdef KOKKOS_ENABLE_CUDA
      else if constexpr (std::is_same_v<Exec, Kokkos::Cuda>) {
        kernels::cuda_gemm(A.data(), B.data(), C.data(), m, n, k);
      }
#endif
    }
  }

  void check_vendor() const {
    if constexpr (!std::is_floating_point_v<T>) {
      throw UnsupportedCase("vendor GEMM has no int32 product (BLAS is floating point only)");
    } else if constexpr (!Dual::zero_copy) {
#ifdef KOKKOS_ENABLE_CUDA
      if (!std::is_same_v<Exec, Kokkos::Cuda>)
#endif
        throw UnsupportedCase(std::string("no vendor BLAS for the ") + Exec::name() +
                              " backend in this build");
    }
  }

  Case c_;
  const ProcessGrid& g_;
  RankBlocks b_;
  std::int64_t rows_, cols_;
  bool staged_;
  Exec exec_;
  Dual A_, B_, C_;
  std::vector<Step> steps_;
  Kokkos::View<T*, Mem> Ap_, Bp_;
  kernels::Matrix<T, Mem> T_;
  std::shared_ptr<void> hAp_, hBp_;
};

} // namespace miniapp::parallel
