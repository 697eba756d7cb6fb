#pragma once
// A case's validation on one rank or many (the driver's validation phase, run/driver.cpp).
#include "core/communicator.hpp"
#include "kernels/executor.hpp"
#include "parallel/fault.hpp"

namespace miniapp {

// Validation of the checked run: each rank checks its part against the one-rank reference;
// counts and checksums are summed, the first bad element comes from the lowest failing rank.
// Sets r.validation, and r.status and r.message when it failed (invalid) or could not run
// (error); returns false only in the latter case, when the case ends here.
bool validate_on_ranks(CaseResult& r, Executor& k, const Communicator& comm,
                       const parallel::FaultInjection& fault, double rtol);

} // namespace miniapp
