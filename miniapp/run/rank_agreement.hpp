#pragma once
// How the ranks of a run agree on a phase's outcome and on the experiment they expanded, and how
// a failure's message names the rank it happened on.
#include "core/communicator.hpp"
#include "plan/plan.hpp"

#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

namespace miniapp {

// e.what(), except that std::bad_alloc's (which does not say what ran out) names the resource.
std::string failure_text(const std::exception& e);

// Ends a phase outside the cases (config in app/cmd_run.cpp, output here): all ranks learn the
// worst status. The lowest failing rank prints its message; rank 0 adds who failed unless every
// rank failed alike (a config error is printed once).
Outcome agree_phase(const Communicator& comm, const char* phase, int code,
                    const std::string& message);

// An option of the command line that changes what the ranks do together, and its value as a
// message shows it: {"--resume", "'DIR'"}, {"--resume", "none"}, {"--rounds", "3"}.
struct ArgumentChoice {
  std::string option, value;
};

// Collective, the first of a run (before the config is read): every rank must have been started
// with rank 0's choices, or the ranks take different paths through the collectives that follow;
// a rank given --resume DIR alone read DIR and waited in a broadcast the others never made (a
// hang until killed). 0 when all agree, else kConfigError (2) on every rank with one sentence
// from rank 0 naming the first option that differs and both values.
int agree_on_arguments(const Communicator& comm, const std::vector<ArgumentChoice>& choices);

// Collective, after the config phase: every rank must have expanded the same experiment (one
// config text, but each rank's own --set items), or their collectives would not match (a hang,
// or buffers of different sizes). Compares the config hash and the number of rounds (--rounds)
// with rank 0's: 0 when all agree, else kConfigError (2) on every rank with one sentence from
// rank 0.
int agree_on_experiment(const Communicator& comm, const Plan& plan, int rounds);

// A case's phase (allocation, validation) run on every rank, then agreed on: the code is kOk,
// kUnsupportedCase when the kernel cannot run the case (kernels' UnsupportedCase: every rank skips
// it), or kRuntimeError, with the lowest failing rank's message ("rank R: PHASE: what" on several
// ranks; running out of host memory names the resource and `doing`, e.g. "validating <case id>").
constexpr int kUnsupportedCase = 1; // below the error codes
Outcome agree_on_case_phase(const Communicator& comm, const char* phase, const std::string& doing,
                            const std::function<void()>& work);

// "rank R: " before a message on several ranks; nothing on one (its messages name no rank).
std::string on_rank(const Communicator& comm);
// "rank R: PHASE: " on several ranks; nothing on one.
std::string in_phase(const Communicator& comm, const char* phase);

} // namespace miniapp
