#pragma once
// This rank's Executor (kernels/executor.hpp) of a case spread over the process grid.
#include "kernels/executor.hpp"
#include "parallel/fault.hpp"
#include "parallel/process_grid.hpp"
#include "parallel/transport.hpp"

#include <memory>
#include <string>

namespace miniapp::parallel {

// matmul: SUMMA (parallel/summa.hpp); axpby and tile_average: the one-rank KernelCase on this
// rank's block, no communication. Throws UnsupportedCase / ResourceError like make_kernel_case.
// `fault` (kept by reference) may fail SUMMA's pipeline with broadcasts in flight.
std::unique_ptr<Executor> make_distributed_case(const Case& c, const std::string& backend,
                                                const ProcessGrid& grid, int panel,
                                                const TransportChoice& transport,
                                                const FaultInjection& fault);

} // namespace miniapp::parallel
