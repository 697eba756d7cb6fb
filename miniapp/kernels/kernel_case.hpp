#pragma once
// The small interface the driver knows kernels by (BabelStream-style): a case object owns its
// device and host data; the runner only sequences and times these calls.
#include "plan/case.hpp"

#include <cstdint>
#include <memory>
#include <ostream>
#include <stdexcept>
#include <string>
#include <vector>

namespace miniapp {

struct Work {
  double flops = 0; // operations per run, as stated in docs/kernels.md
  double bytes =
      0; // minimal device-memory traffic per run (each input read once, output written once)
};

struct Validation {
  bool checked = false;
  bool passed = false;
  long long bad_elements = 0;
  double max_error = 0;  // max |out - ref| / scale over all elements
  double tolerance = 0;  // the bound each element had to meet (relative to its scale)
  std::string first_bad; // "(i,j): got x, expected y" of the first failing element (global i, j)
  // Sum of the output, of the reference, and tolerance * sum of the scales: a whole-matrix check
  // that runs on any number of ranks compare (|checksum - checksum_ref| <= checksum_bound).
  double checksum = 0, checksum_ref = 0, checksum_bound = 0;
};

// The part of the case's global matrices a KernelCase holds: everything on one rank, a rank's
// block in a distributed run (parallel/grid.hpp). Inputs are generated per global element, so a
// block holds the same numbers the whole matrix has there. Only axpby and tile_average use it
// (their blocks need no communication); rows/cols < 0 mean the whole m x n.
struct Block {
  std::int64_t row0 = 0, col0 = 0, rows = -1, cols = -1;
};

class KernelCase {
public:
  virtual ~KernelCase() = default;
  virtual std::string label() const = 0; // miniapp::<family>::<variant>
  virtual Work work() const = 0;
  virtual void reset_inputs() {} // restore inputs a previous run overwrote (in place)
  virtual void upload() = 0;     // host inputs -> device (no-op copies on host spaces)
  virtual void run() = 0;        // one launch; the caller fences
  virtual void fence() = 0;      // waits for this case's execution-space instance (run/timing.hpp)
  virtual void poison() = 0;     // fill the outputs with a value no kernel produces
  virtual void download() = 0;   // device outputs -> host
  virtual Validation
  validate(double rtol) = 0; // compare the downloaded outputs with a host reference
  virtual bool transfers_are_copies() const = 0; // false when device memory is host memory
  virtual void
  print(std::ostream& os) const = 0; // small results, as the source programs print them
  virtual std::vector<double> result() const = 0; // the downloaded output, row-major
};

// Builds the case on the execution space named by backend ("serial", "openmp", "cuda", "hip").
// Throws UnsupportedCase for combinations that cannot run (e.g. vendor int32), ResourceError for
// limits (scratch, team size) known before launch.
std::unique_ptr<KernelCase> make_kernel_case(const Case& c, const std::string& backend,
                                             const Block& block = {});

struct UnsupportedCase : std::runtime_error {
  using std::runtime_error::runtime_error;
};
struct ResourceError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

} // namespace miniapp
