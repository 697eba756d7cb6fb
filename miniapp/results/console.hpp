#pragma once
// Console output: the results table, and progress lines (a bar with ETA on a terminal, plain
// lines in batch jobs).
#include "plan/plan.hpp"
#include "core/result.hpp"

#include <chrono>
#include <ostream>
#include <string>
#include <vector>

namespace miniapp {

// How a run is spread: ranks x threads per rank on host backends, ranks x one device each on
// GPUs. Printed in the run header and by `info`, recorded in results.json.
struct Parallelism {
  int ranks = 1;
  int threads_per_rank = 1; // host backends: Kokkos concurrency; GPUs: 0
  int devices_per_rank = 0; // GPUs: 1
  std::string backend, device;
  std::string summary() const; // "2 ranks x 4 threads (openmp, <CPU>)"
};
Parallelism describe_parallelism(int ranks, const std::string& backend);

void print_results_table(std::ostream& os, const Plan& plan, const std::vector<CaseResult>& rows);
// Multi-rank runs: each measured row's per-rank breakdown (compute, communication, transfer,
// exposed, overlap) as min / mean / max over the ranks, and the compute imbalance.
void print_rank_table(std::ostream& os, const std::vector<CaseResult>& rows, int ranks);

class Progress {
public:
  Progress(std::ostream& os, size_t total, bool tty);
  void case_done(const CaseResult& r);
  void finish();

private:
  std::ostream& os_;
  size_t total_, done_ = 0;
  bool tty_;
  std::chrono::steady_clock::time_point start_;
};

} // namespace miniapp
