#pragma once
// How the ranks of a run agree on a phase's outcome and on the experiment they expanded, and how
// a failure's message names the rank it happened on.
#include "core/communicator.hpp"
#include "plan/plan.hpp"

#include <functional>
#include <stdexcept>
#include <string>

namespace miniapp {

// e.what(), except that std::bad_alloc's (which does not say what ran out) names the resource.
std::string failure_text(const std::exception& e);

// Ends a phase outside the cases (config in app/cmd_run.cpp, output here): all ranks learn the
// worst status. The lowest failing rank prints its message; rank 0 adds who failed unless every
// rank failed alike (a config error is printed once).
Outcome agree_phase(const Communicator& comm, const char* phase, int code,
                    const std::string& message);

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
