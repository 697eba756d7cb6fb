// Distributed cases: SUMMA for matmul; axpby and tile_average need no communication, so each
// rank runs the one-rank KernelCase on its block (inputs generated from global indices).
#include "kernels/families.hpp"
#include "parallel/distributed_case.hpp"
#include "parallel/summa.hpp"
#include "run/backends.hpp"

namespace miniapp::parallel {
namespace {

class LocalBlockCase final : public DistributedCase {
public:
  LocalBlockCase(const Case& c, const std::string& backend, const RankBlocks& b)
      : c_(c), rows_(b.rows.size), cols_(b.cols.size),
        k_(make_kernel_case(c, backend, Block{b.rows.begin, b.cols.begin, rows_, cols_})) {}
  Work local_work() const override { return k_->work(); }
  Case local_case() const override {
    Case l = c_;
    l.m = rows_;
    l.n = cols_;
    return l;
  }
  void reset_inputs() override { k_->reset_inputs(); }
  void upload() override { k_->upload(); }
  RepTimes run() override {
    Kokkos::fence();
    Kokkos::Timer t;
    k_->run();
    Kokkos::fence();
    RepTimes r;
    r.compute = t.seconds();
    return r;
  }
  void poison() override { k_->poison(); }
  void download() override { k_->download(); }
  Validation validate(double rtol) override { return k_->validate(rtol); }
  bool transfers_are_copies() const override { return k_->transfers_are_copies(); }

private:
  Case c_;
  std::int64_t rows_, cols_;
  std::unique_ptr<KernelCase> k_;
};

} // namespace

std::unique_ptr<DistributedCase> make_distributed_case(const Case& c, const std::string& backend,
                                                       const ProcessGrid& grid, int panel,
                                                       bool device_aware_mpi,
                                                       const FaultInjection& fault) {
  switch (family(c.family).distribution) {
  case Distribution::summa:
    return with_backend(backend, [&](auto exec) {
      return with_precision(c.precision, [&](auto value) -> std::unique_ptr<DistributedCase> {
        return std::make_unique<SummaMatmul<decltype(exec), decltype(value)>>(
            c, grid, panel, device_aware_mpi, fault);
      });
    });
  case Distribution::local_blocks:
    return std::make_unique<LocalBlockCase>(c, backend,
                                            rank_blocks(c, grid.shape(), grid.row(), grid.col()));
  case Distribution::single_rank:
    break;
  }
  throw UnsupportedCase(c.family + " runs on one rank only");
}

} // namespace miniapp::parallel
