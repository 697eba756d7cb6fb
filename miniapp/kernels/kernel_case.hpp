#pragma once
// The small interface the driver knows kernels by (BabelStream-style): a case object owns its
// device and host data; the runner only sequences and times these calls.
#include "core/result.hpp"

#include <cstdint>
#include <memory>
#include <ostream>
#include <stdexcept>
#include <string>
#include <vector>

namespace miniapp {

class KernelCase {
public:
  virtual ~KernelCase() = default;
  virtual std::string label() const = 0; // miniapp::<family>::<variant>
  virtual Work work() const = 0;
  virtual void reset_inputs() {} // restore inputs a previous run overwrote (in place)
  virtual void upload() = 0;     // host inputs -> device (no-op copies on host spaces)
  virtual void run() = 0;        // one launch; the caller fences
  virtual void fence() = 0;      // waits for this case's execution-space instance (core/timing.hpp)
  virtual void poison() = 0;     // fill the outputs with a value no kernel produces
  virtual void download() = 0;   // device outputs -> host
  virtual Validation
  validate(double rtol) = 0; // compare the downloaded outputs with a host reference
  virtual bool transfers_are_copies() const = 0; // false when device memory is host memory
  virtual void
  print(std::ostream& os) const = 0; // small results, as the source programs print them
  virtual std::vector<double> result() const = 0; // the downloaded output, row-major
  // What the latest run() chose inside the kernel (split-K, padding); the result row records it.
  virtual LaunchChoice launch_choice() const { return {}; }
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
