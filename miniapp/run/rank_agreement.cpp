#include "run/rank_agreement.hpp"

#include "kernels/kernel_case.hpp"
#include "plan/config_hash.hpp"
#include "run/exit_code.hpp"

#include <algorithm>
#include <iostream>
#include <new>

namespace miniapp {

std::string failure_text(const std::exception& e) {
  if (dynamic_cast<const std::bad_alloc*>(&e))
    return "out of host memory (resource: host memory)";
  return e.what();
}

Outcome agree_phase(const Communicator& comm, const char* phase, int code,
                    const std::string& message) {
  const Outcome o = comm.agree(code, message);
  if (o.code) {
    if (comm.rank() == o.rank)
      std::cerr << message << std::endl;
    if (comm.rank() == 0 && !o.everyone)
      std::cerr << "miniapp: rank " << o.rank << " failed in phase " << phase << "; all "
                << comm.size() << " ranks stop with exit code " << o.code << std::endl;
  }
  return o;
}

int agree_on_experiment(const Communicator& comm, const Plan& plan, int rounds) {
  if (comm.size() == 1)
    return kOk;
  // --rounds is no part of the config hash (runs of one experiment pool across rounds), but a
  // rank that runs more rounds than another waits in collectives the others never reach.
  const auto says = [](const std::string& hash, int n) {
    return "config hash " + hash + ", --rounds " + std::to_string(n);
  };
  const std::string mine = says(config_hash(plan), std::max(1, rounds));
  const std::string root = comm.broadcast(mine);
  const std::string why = "miniapp: rank " + std::to_string(comm.rank()) +
                          "'s config, --set items and --rounds expand to another experiment (" +
                          mine + ") than rank 0's (" + root +
                          "); start every rank with the same arguments";
  const Outcome o = comm.agree(mine == root ? kOk : kConfigError, mine == root ? "" : why);
  if (o.code && comm.rank() == 0)
    std::cerr << o.message << std::endl;
  return o.code;
}

Outcome agree_on_case_phase(const Communicator& comm, const char* phase, const std::string& doing,
                            const std::function<void()>& work) {
  int code = kOk;
  std::string message;
  try {
    work();
  } catch (const UnsupportedCase& e) {
    code = kUnsupportedCase;
    message = e.what();
  } catch (const std::bad_alloc&) {
    code = kRuntimeError;
    message = on_rank(comm) + "out of memory (resource: host memory) while " + doing;
  } catch (const std::exception& e) {
    code = kRuntimeError;
    message = in_phase(comm, phase) + e.what();
  }
  return comm.agree(code, message);
}

// Who failed, in messages: one rank's messages name no rank (as before there were several).
std::string on_rank(const Communicator& comm) {
  return comm.size() > 1 ? "rank " + std::to_string(comm.rank()) + ": " : "";
}
std::string in_phase(const Communicator& comm, const char* phase) {
  return comm.size() > 1 ? on_rank(comm) + phase + ": " : "";
}

} // namespace miniapp
