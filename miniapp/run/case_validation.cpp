#include "run/case_validation.hpp"

#include "run/rank_agreement.hpp"

#include <algorithm>

namespace miniapp {

bool validate_on_ranks(CaseResult& r, Executor& k, const Communicator& comm,
                       const parallel::FaultInjection& fault, double rtol) {
  Validation v;
  const Outcome o = agree_on_case_phase(comm, "validation", "validating " + r.c.id(), [&] {
    fault.trigger("lag");
    v = k.validate(rtol);
    if (fault.armed("validation")) { // as if an element came back wrong
      v.passed = false;
      v.bad_elements = std::max(1LL, v.bad_elements);
      v.first_bad =
          "injected fault in phase validation (MINIAPP_FAULT=" + std::to_string(comm.rank()) +
          ":validation)";
    }
  });
  if (o.code) {
    r.status = Status::error;
    r.message = o.message;
    return false;
  }
  std::vector<double> sums = {double(v.bad_elements), v.checksum, v.checksum_ref, v.checksum_bound};
  comm.reduce(sums, ReduceOp::sum);
  const Outcome first = comm.agree(v.bad_elements > 0 ? 1 : 0, on_rank(comm) + v.first_bad);
  v.bad_elements = static_cast<long long>(sums[0]);
  v.checksum = sums[1];
  v.checksum_ref = sums[2];
  v.checksum_bound = sums[3];
  v.max_error = comm.reduce(v.max_error, ReduceOp::max);
  v.passed = v.bad_elements == 0;
  v.first_bad = first.code ? first.message : "";
  r.validation = v;
  if (!v.passed) {
    r.status = Status::invalid;
    r.message = std::to_string(v.bad_elements) + " element(s) out of tolerance, first " +
                (comm.size() > 1 ? "on " : "") + v.first_bad;
  }
  return true;
}

} // namespace miniapp
