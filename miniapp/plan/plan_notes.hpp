#pragma once
// Notes, not silence: what a config asks that changes nothing, said in `validate` and the run
// header ("file:line:col: note: ..."). They are never errors: the plan runs as it would.
#include "config/config.hpp"
#include "core/case.hpp"

#include <string>
#include <vector>

namespace miniapp {

// One note per key and variant where the case gives a value that a variant it runs does not read
// (`variant: flat` with `tile: [4, 8, 16]`: flat runs once, without a tile).
std::vector<std::string> unread_value_notes(const config::CaseSpec& spec);
// Whether c's variant reads every variant-specific key its config case gives: a duplicate of such
// a case is not explained by an unread value (and gets its own note).
bool reads_every_given_key(const config::CaseSpec& spec, const Case& c);

} // namespace miniapp
