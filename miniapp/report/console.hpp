#pragma once
// Console output: the results table, and progress lines (a bar with ETA on a terminal, plain
// lines in batch jobs).
#include "plan/plan.hpp"
#include "run/runner.hpp"

#include <chrono>
#include <ostream>
#include <vector>

namespace miniapp {

void print_results_table(std::ostream& os, const Plan& plan, const std::vector<CaseResult>& rows);

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
