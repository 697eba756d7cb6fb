#pragma once
// The one interface the run driver (run/driver.hpp) runs every case through, on one rank or
// many: this rank's part of a case. On one rank it is the KernelCase of the whole matrix; on
// several ranks parallel/distributed_case.hpp supplies SUMMA (run() communicates, all ranks call
// it together) or the KernelCase of this rank's block.
#include "kernels/kernel_case.hpp"

#include <memory>
#include <ostream>

namespace miniapp {

// Where one run()'s time went, as the executor measured it inside the launch.
struct RepTimes {
  double compute = 0;  // kernels (local products, accumulation)
  double comm = 0;     // MPI calls
  double transfer = 0; // host <-> device staging and panel packing
};

class Executor {
public:
  virtual ~Executor() = default;
  virtual Work local_work() const = 0; // this rank's share; the sum over ranks is the case's work
  virtual Case local_case() const = 0; // this rank's part as a one-rank case (for the ceilings)
  virtual void reset_inputs() = 0;
  virtual void upload() = 0;
  // One launch; collective on several ranks. Without a breakdown (breaks_down() false) the
  // returned times are zero and the whole fenced launch is compute.
  virtual RepTimes run() = 0;
  virtual bool breaks_down() const { return false; }
  virtual void fence() = 0; // this case's execution-space instance (core/timing.hpp)
  virtual void poison() = 0;
  virtual void download() = 0;
  virtual Validation validate(double rtol) = 0; // the local part against the global reference
  virtual bool transfers_are_copies() const = 0;
  virtual void print(std::ostream&) const {} // small results (whole-matrix executors only)
  // What the latest run() chose inside the kernel (KernelCase::launch_choice); none for SUMMA.
  virtual LaunchChoice launch_choice() const { return {}; }
};

// A KernelCase on `block` of c's matrices (the whole matrix by default), as an Executor.
std::unique_ptr<Executor> kernel_executor(const Case& c, const std::string& backend,
                                          const Block& block = {});

} // namespace miniapp

namespace miniapp {

// The checked run: fresh inputs, outputs poisoned (a value no kernel produces), one launch,
// fenced, outputs downloaded; validate() or print() then read what this launch wrote. For a
// KernelCase or an Executor (collective on several ranks).
template <class K>
void checked_run(K& k) {
  k.reset_inputs();
  k.upload();
  k.poison();
  k.run();
  k.fence();
  k.download();
}

} // namespace miniapp
