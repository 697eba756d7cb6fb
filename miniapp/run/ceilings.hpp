#pragma once
// Ceilings measured in the same process as the kernels, so every rate can be stated as a ratio:
//   copy       device copy bandwidth (deep_copy between device views; on host backends a Kokkos
//              copy kernel with the backend's thread count, i.e. a STREAM-like copy), bytes read
//              plus bytes written
//   vendor     the vendor GEMM (cuBLAS / OpenBLAS) at the same size and precision
//   transfer   host-to-device bandwidth from pinned host memory (GPU backends)
#include "run/runner.hpp"

#include <map>
#include <ostream>
#include <string>
#include <tuple>

namespace miniapp {

double measure_copy_bandwidth(const std::string& backend, std::size_t bytes_per_array, int reps);
double measure_pinned_h2d_bandwidth(const std::string& backend, std::size_t bytes, int reps);
// GFLOP/s of the vendor GEMM at the shape and precision of `of` (a matmul case), timed like the
// cases (core/timing.hpp) over about 0.2 s of launches. Throws when there is no vendor GEMM.
double measure_vendor_gemm(const Case& of, const std::string& backend);

class MeasuredCeilings : public CeilingProvider {
public:
  explicit MeasuredCeilings(std::string backend) : backend_(std::move(backend)) {}
  void attach(CaseResult& r, const std::string& backend) override;
  void print(std::ostream& os) const;
  double copy_gbs();

private:
  std::string backend_;
  double copy_gbs_ = 0;
  std::map<std::tuple<int, std::int64_t, std::int64_t, std::int64_t>, double> vendor_gflops_;
};

} // namespace miniapp
