#include "run/rank_agreement.hpp"

#include "core/sinks.hpp"
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

namespace {
// The values, each after its length ("3:abc"), so no value can pass for two.
std::string encode(const std::vector<ArgumentChoice>& choices) {
  std::string out;
  for (const ArgumentChoice& c : choices)
    out += std::to_string(c.value.size()) + ":" + c.value;
  return out;
}
std::vector<std::string> decode(const std::string& text) {
  std::vector<std::string> out;
  for (std::size_t at = 0; at < text.size();) {
    const std::size_t colon = text.find(':', at);
    if (colon == std::string::npos)
      break;
    const std::size_t n = std::stoul(text.substr(at, colon - at));
    out.push_back(text.substr(colon + 1, n));
    at = colon + 1 + n;
  }
  return out;
}
} // namespace

int agree_on_arguments(const Communicator& comm, const std::vector<ArgumentChoice>& choices) {
  if (comm.size() == 1)
    return kOk;
  const std::vector<std::string> root = decode(comm.broadcast(encode(choices)));
  std::string why;
  for (std::size_t i = 0; i < choices.size() && why.empty(); ++i) {
    const std::string& theirs = i < root.size() ? root[i] : std::string("none");
    if (choices[i].value != theirs)
      why = "miniapp: rank " + std::to_string(comm.rank()) + "'s " + choices[i].option + " (" +
            for_terminal(choices[i].value) + ") differs from rank 0's (" + for_terminal(theirs) +
            "); start every rank with the same arguments";
  }
  const Outcome o = comm.agree(why.empty() ? kOk : kConfigError, why);
  if (o.code && comm.rank() == 0)
    std::cerr << o.message << std::endl;
  return o.code;
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
