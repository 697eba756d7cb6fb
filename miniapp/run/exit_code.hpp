#pragma once
// The exit codes of every command, and the one rule that turns a run's case statuses into one.
#include "core/result.hpp"

#include <vector>

namespace miniapp {

// 0 success, 2 config or usage error (before any work), 3 runtime or resource error,
// 4 validation failed (the rows are marked invalid), 5 a row below its performance reference
// (--references; docs/history.md): 3 and 4 win over 5.
enum ExitCode {
  kOk = 0,
  kConfigError = 2,
  kRuntimeError = 3,
  kValidationFailed = 4,
  kBelowReference = 5
};

// A finished run's code, the same on one rank or many: any error -> 3, else any invalid row -> 4,
// else an interruption -> 3, else 0. Unsupported cases are skipped, not failures.
int exit_code(const std::vector<CaseResult>& results, bool interrupted);

} // namespace miniapp
