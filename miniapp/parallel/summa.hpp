#pragma once
// SUMMA (van de Geijn & Watts): C = A * B on a P x Q grid. C is cut in row blocks over the
// process rows and column blocks over the process columns; A's columns (k) are cut over the
// process columns and B's rows (k) over the process rows. For each panel of k (at most W wide,
// and never crossing an owner's boundary) the owner of A's panel broadcasts it along its process
// row, the owner of B's panel along its process column, and every rank adds the product of the
// two panels to its C block with the case's kernel variant (flat, tiled, tiled_rb, vendor).
// Our kernels overwrite their output: the first panel writes C, later ones write a partial
// product that the axpby kernel adds to C (C = 1*C + 1*T).
//
// Pipelined: panel s+1 travels (MPI_Ibcast) while the product of panel s runs; the panels are
// double-buffered. On GPUs the product is launched first (asynchronous) and the packing and the
// host staging of the next panel run on a second execution-space instance (its own stream); on
// host backends the broadcasts are posted first and the product runs in row chunks with an
// MPI_Testall between them, so the library can move data. docs/mpi.md has the model.
//
// Transports (parallel/transport.hpp): host stages GPU panels through pinned host buffers for
// MPI; device_mpi hands a CUDA-aware MPI the device buffers; device_ipc (CUDA, one node) has the
// receivers copy the owner's device buffer through CUDA IPC, and MPI carries only one int per
// panel ("panel s is packed") and a barrier per panel ("panel s is copied"), which the owner
// waits for before it packs panel s+2 into the same buffer.
#include "core/compat.hpp"
#include "kernels/case_support.hpp"
#include "kernels/families.hpp"
#include "kernels/matmul_product.hpp"
#include "kernels/matrix.hpp"
#include "kernels/vendor_blas.hpp"
#include "parallel/distributed_case.hpp"
#include "parallel/ipc_panels.hpp"
#include "parallel/pending_broadcasts.hpp"
#include "parallel/transport.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cmath>
#include <memory>
#include <thread>
#include <vector>

namespace miniapp::parallel {

template <class Exec, class T>
class SummaMatmul final : public Executor {
  using Mem = typename Exec::memory_space;
  using Dual = kernels::DualMatrix<T, Exec>;
  using Panel =
      Kokkos::View<T**, Kokkos::LayoutRight, Mem, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;

  struct Step {
    std::int64_t k0, w;
    int owner_a, owner_b; // process column holding A's panel, process row holding B's panel
  };

public:
  SummaMatmul(const Case& c, const ProcessGrid& g, int panel, const TransportChoice& transport,
              const FaultInjection& fault)
      : c_(c), g_(g), fault_(fault), b_(rank_blocks(c, g.shape(), g.row(), g.col())),
        rows_(b_.rows.size), cols_(b_.cols.size),
        staged_(!Dual::zero_copy && transport.transport == Transport::host),
        ipc_(transport.transport == Transport::device_ipc),
        A_("miniapp::summa::A", rows_, b_.inner_a.size, c.pinned),
        B_("miniapp::summa::B", b_.inner_b.size, cols_, c.pinned),
        C_("miniapp::summa::C", rows_, cols_, c.pinned) {
    if (!transport.unavailable.empty())
      throw UnsupportedCase(transport.unavailable);
    if (ipc_ && !has_ipc<Exec>)
      throw UnsupportedCase(std::string("no GPU IPC on the ") + Exec::name() + " backend");
    kernels::check_matmul_product<Exec, T>(c);
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
    for (int i = 0; i < 2; ++i) { // double buffer: panel s computes while s+1 arrives
      if (ipc_) {                 // shareable memory; the Views only point into it
        ipc_mem_[i] = allocate_shareable(sizeof(T) * std::size_t(rows_ * wmax));
        ipc_mem_[2 + i] = allocate_shareable(sizeof(T) * std::size_t(wmax * cols_));
        Ap_[i] = Kokkos::View<T*, Mem>(static_cast<T*>(ipc_mem_[i].get()), rows_ * wmax);
        Bp_[i] = Kokkos::View<T*, Mem>(static_cast<T*>(ipc_mem_[2 + i].get()), wmax * cols_);
        continue;
      }
      Ap_[i] = Kokkos::View<T*, Mem>(
          Kokkos::view_alloc(Kokkos::WithoutInitializing, "miniapp::summa::A_panel"), rows_ * wmax);
      Bp_[i] = Kokkos::View<T*, Mem>(
          Kokkos::view_alloc(Kokkos::WithoutInitializing, "miniapp::summa::B_panel"), wmax * cols_);
    }
    if (steps_.size() > 1)
      T_ = kernels::Matrix<T, Mem>(
          Kokkos::view_alloc(Kokkos::WithoutInitializing, "miniapp::summa::partial"), rows_, cols_);
    if (staged_) { // always pinned: these are SUMMA's own buffers, not the case's A/B/C
      // (`pinned` is about those), and pageable memory would add a driver-side bounce copy
      if (g.shape().a_panels_travel()) // only panels that others receive are staged (send())
        hAp_ = kernels::allocate_host(sizeof(T) * std::size_t(rows_ * wmax), true);
      if (g.shape().b_panels_travel())
        hBp_ = kernels::allocate_host(sizeof(T) * std::size_t(wmax * cols_), true);
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

  bool breaks_down() const override { return true; }
  void fence() override { exec_.fence(); }
  RepTimes run() override {
    RepTimes t;
    if (ipc_ && !peers_a_) { // collective; here rather than in the constructor, because a rank
      // whose allocation failed never reaches it (the driver's allocation phase agrees first)
      peers_a_ = std::make_unique<IpcPeers>(g_.row_comm(),
                                            std::vector<void*>{Ap_[0].data(), Ap_[1].data()});
      peers_b_ = std::make_unique<IpcPeers>(g_.col_comm(),
                                            std::vector<void*>{Bp_[0].data(), Bp_[1].data()});
    }
    {
      PendingBroadcasts first; // the prologue: nothing to hide panel 0 behind
      send(0, 0, first, t);
      receive(0, 0, first, t);
    }
    for (std::size_t s = 0; s < steps_.size(); ++s) {
      const int cur = int(s % 2);
      const bool more = s + 1 < steps_.size();
      PendingBroadcasts next;
      if (more && !kAsyncKernels)
        send(s + 1, 1 - cur, next, t); // host: posted first, progressed between chunks
      multiply(s, cur, next, t);
      if (more && kAsyncKernels)
        send(s + 1, 1 - cur, next, t); // device: while the product runs
      fault_.trigger("stall");
      fault_.trigger("pipeline"); // `next` completes its broadcasts on the way out
      if (more)
        receive(s + 1, 1 - cur, next, t);
      t.compute += clock_.take(); // also waits for the product: buffer cur is free again
    }
    t.comm += host_timed([&] { // no "consumed" barrier outlives the repetition
      consumed_[0].wait();
      consumed_[1].wait();
    });
    exec_.fence();
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
  Panel panel_a(int buf, std::int64_t w) const { return Panel(Ap_[buf].data(), rows_, w); }
  Panel panel_b(int buf, std::int64_t w) const { return Panel(Bp_[buf].data(), w, cols_); }

  // The owners pack panel s into buffer buf (and stage it to the host unless MPI takes device
  // memory or the backend's memory is host memory), then post its broadcasts.
  void send(std::size_t s, int buf, PendingBroadcasts& pending, RepTimes& t) {
    const Step& st = steps_[s];
    const Panel Ap = panel_a(buf, st.w), Bp = panel_b(buf, st.w);
    const bool own_a = g_.col() == st.owner_a, own_b = g_.row() == st.owner_b;
    // A panel nobody else receives (A on a grid of one process column, B on one process row,
    // e.g. B on 1 x Q) is packed for the local product but neither staged nor broadcast: staging
    // it cost a device -> host copy per panel on the owner's critical path (docs/mpi.md, Model).
    const bool send_a = g_.shape().a_panels_travel(), send_b = g_.shape().b_panels_travel();
    const auto& side = side_.get();
    if (ipc_) // the receivers of panel s-2 have copied it out of buffer buf
      t.comm += host_timed([&] { consumed_[buf].wait(); });
    t.transfer += host_timed([&] {
      const std::int64_t a0 = st.k0 - b_.inner_a.begin, b0 = st.k0 - b_.inner_b.begin;
      if (own_a)
        Kokkos::deep_copy(side, Ap,
                          Kokkos::subview(A_.d, Kokkos::ALL, std::make_pair(a0, a0 + st.w)));
      if (own_b)
        Kokkos::deep_copy(side, Bp,
                          Kokkos::subview(B_.d, std::make_pair(b0, b0 + st.w), Kokkos::ALL));
      if (staged_ && own_a && send_a)
        Kokkos::deep_copy(side, host_a(st.w), Ap);
      if (staged_ && own_b && send_b)
        Kokkos::deep_copy(side, host_b(st.w), Bp);
      side.fence();
    });
    if (ipc_) { // "packed": side.fence() above made the panel visible to the peers' copies
      t.comm += host_timed([&] {
        pending.post(&token_[buf][0], 1, MPI_INT, st.owner_a, g_.row_comm());
        pending.post(&token_[buf][1], 1, MPI_INT, st.owner_b, g_.col_comm());
      });
      return;
    }
    t.comm += host_timed([&] {
      if (send_a)
        pending.post(staged_ ? hAp_.get() : static_cast<void*>(Ap.data()), std::int64_t(Ap.size()),
                     mpi_type<T>(), st.owner_a, g_.row_comm());
      if (send_b)
        pending.post(staged_ ? hBp_.get() : static_cast<void*>(Bp.data()), std::int64_t(Bp.size()),
                     mpi_type<T>(), st.owner_b, g_.col_comm());
    });
  }

  // Completes panel s's broadcasts; where staged, the receivers copy it to the device; with IPC
  // they copy it from the owner's device buffer, then say so (the owner may reuse the buffer).
  void receive(std::size_t s, int buf, PendingBroadcasts& pending, RepTimes& t) {
    t.comm += host_timed([&] { pending.wait(); });
    const Step& st = steps_[s];
    const auto& side = side_.get();
    if (ipc_) {
      t.transfer += host_timed([&] {
        if (g_.col() != st.owner_a)
          Kokkos::deep_copy(side, panel_a(buf, st.w),
                            Panel(static_cast<T*>(peers_a_->peer(st.owner_a, buf)), rows_, st.w));
        if (g_.row() != st.owner_b)
          Kokkos::deep_copy(side, panel_b(buf, st.w),
                            Panel(static_cast<T*>(peers_b_->peer(st.owner_b, buf)), st.w, cols_));
        side.fence();
      });
      t.comm += host_timed([&] {
        consumed_[buf].post_barrier(g_.row_comm());
        consumed_[buf].post_barrier(g_.col_comm());
      });
      return;
    }
    if (!staged_)
      return;
    t.transfer += host_timed([&] {
      if (g_.col() != st.owner_a)
        Kokkos::deep_copy(side, panel_a(buf, st.w), host_a(st.w));
      if (g_.row() != st.owner_b)
        Kokkos::deep_copy(side, panel_b(buf, st.w), host_b(st.w));
      side.fence();
    });
  }

  // C += A_s * B_s. On host backends in row chunks, with the pending broadcasts progressed
  // between them; on devices one asynchronous launch (clock_ times it on the device).
  void multiply(std::size_t s, int buf, PendingBroadcasts& pending, RepTimes& t) {
    const std::int64_t w = steps_[s].w;
    const Panel Ap = panel_a(buf, w), Bp = panel_b(buf, w);
    const std::int64_t chunks =
        kAsyncKernels || !pending.active() ? 1 : std::clamp<std::int64_t>(rows_ / 64, 1, 4);
    for (std::int64_t c = 0; c < chunks; ++c) {
      const std::int64_t r0 = rows_ * c / chunks, r1 = rows_ * (c + 1) / chunks;
      const Panel A(Ap.data() + r0 * w, r1 - r0, w), C(C_.d.data() + r0 * cols_, r1 - r0, cols_);
      clock_.start(exec_);
      if (s == 0) {
        product(A, Bp, C);
      } else {
        const Panel P(T_.data() + r0 * cols_, r1 - r0, cols_);
        product(A, Bp, P);
        kernels::matmul_accumulate(exec_, C, P);
      }
      clock_.stop(exec_);
      if (c + 1 < chunks) {
        t.compute += clock_.take();
        t.comm += host_timed([&] { pending.progress(); });
      }
    }
  }

  kernels::HostMatrix<T> host_a(std::int64_t w) const {
    return kernels::HostMatrix<T>(static_cast<T*>(hAp_.get()), rows_, w);
  }
  kernels::HostMatrix<T> host_b(std::int64_t w) const {
    return kernels::HostMatrix<T>(static_cast<T*>(hBp_.get()), w, cols_);
  }

  // The host's wall time of f (f fences what it waits for itself; no device-wide fence, which
  // would wait for the product the pipeline hides the transfer behind).
  template <class F>
  static double host_timed(F&& f) {
    Kokkos::Timer timer;
    f();
    return timer.seconds();
  }

  // 'tile: auto' is not searched under MPI (no autotune across ranks): the family table's default.
  int tile() const { return c_.tile > 0 ? c_.tile : family(c_.family).variant(c_.variant).tile; }

  template <class VC>
  void product(const Panel& A, const Panel& B, const VC& C) {
    kernels::matmul_product<Exec, T>(exec_, c_, tile(), A, B, C);
  }

  Case c_;
  const ProcessGrid& g_;
  const FaultInjection& fault_;
  RankBlocks b_;
  std::int64_t rows_, cols_;
  bool staged_, ipc_;
  // Kernels on a device backend return before they finish (the host communicates meanwhile).
  static constexpr bool kAsyncKernels = !Dual::zero_copy;
  Exec exec_;
  compat::SideInstance<Exec> side_; // packing and staging beside the product
  compat::KernelClock<Exec> clock_;
  Dual A_, B_, C_;
  std::vector<Step> steps_;
  Kokkos::View<T*, Mem> Ap_[2], Bp_[2];
  kernels::Matrix<T, Mem> T_;
  std::shared_ptr<void> hAp_, hBp_;
  std::shared_ptr<void> ipc_mem_[4];            // device_ipc: A, A, B, B panel buffers
  std::unique_ptr<IpcPeers> peers_a_, peers_b_; // opened after the buffers, closed first
  int token_[2][2] = {};                        // device_ipc: the "packed" broadcasts' int
  PendingBroadcasts consumed_[2];               // device_ipc: "copied" barriers per buffer
};

} // namespace miniapp::parallel
