// Distributed cases, by the family table's distribution: SUMMA for matmul; local blocks (axpby,
// tile_average) need no communication, so each rank runs the one-rank KernelCase on its block
// (inputs generated from global indices).
#include "kernels/families.hpp"
#include "parallel/distributed_case.hpp"
#include "parallel/summa.hpp"
#include "core/backends.hpp"

namespace miniapp::parallel {

std::unique_ptr<Executor> make_distributed_case(const Case& c, const std::string& backend,
                                                const ProcessGrid& grid, int panel,
                                                const TransportChoice& transport,
                                                const FaultInjection& fault) {
  switch (family(c.family).distribution) {
  case Distribution::summa:
    return with_backend(backend, [&](auto exec) {
      return with_precision(c.precision, [&](auto value) -> std::unique_ptr<Executor> {
        return std::make_unique<SummaMatmul<decltype(exec), decltype(value)>>(c, grid, panel,
                                                                              transport, fault);
      });
    });
  case Distribution::local_blocks: {
    const RankBlocks b = rank_blocks(c, grid.shape(), grid.row(), grid.col());
    return kernel_executor(c, backend, Block{b.rows.begin, b.cols.begin, b.rows.size, b.cols.size});
  }
  case Distribution::single_rank:
    break;
  }
  throw UnsupportedCase(c.family + " runs on one rank only");
}

} // namespace miniapp::parallel
