#include "run/exit_code.hpp"

#include <algorithm>

namespace miniapp {

int exit_code(const std::vector<CaseResult>& results, bool interrupted) {
  const auto any = [&](Status s) {
    return std::any_of(results.begin(), results.end(),
                       [s](const CaseResult& r) { return r.status == s; });
  };
  if (any(Status::error))
    return kRuntimeError;
  if (any(Status::invalid))
    return kValidationFailed;
  return interrupted ? kRuntimeError : kOk;
}

} // namespace miniapp
