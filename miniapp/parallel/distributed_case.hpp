#pragma once
// One rank's part of a distributed case. Like KernelCase, but run() may communicate (all ranks
// call it together) and reports where its time went.
#include "kernels/kernel_case.hpp"
#include "parallel/fault.hpp"
#include "parallel/process_grid.hpp"

#include <memory>
#include <string>

namespace miniapp::parallel {

struct RepTimes {
  double compute = 0;  // kernels (local products, accumulation)
  double comm = 0;     // MPI calls
  double transfer = 0; // host <-> device staging and panel packing
};

class DistributedCase {
public:
  virtual ~DistributedCase() = default;
  virtual Work local_work() const = 0; // this rank's share; the sum over ranks is the case's work
  virtual Case local_case() const = 0; // the block as a one-rank case (for the ceilings)
  virtual void reset_inputs() = 0;
  virtual void upload() = 0;
  virtual RepTimes run() = 0; // collective; fenced
  virtual void poison() = 0;
  virtual void download() = 0;
  virtual Validation validate(double rtol) = 0; // the local block against the global reference
  virtual bool transfers_are_copies() const = 0;
};

// matmul: SUMMA (parallel/summa.hpp); axpby and tile_average: the one-rank KernelCase on this
// rank's block, no communication. Throws UnsupportedCase / ResourceError like make_kernel_case.
// `fault` (kept by reference) may fail SUMMA's pipeline with broadcasts in flight.
std::unique_ptr<DistributedCase> make_distributed_case(const Case& c, const std::string& backend,
                                                       const ProcessGrid& grid, int panel,
                                                       bool device_aware_mpi,
                                                       const FaultInjection& fault);

} // namespace miniapp::parallel
