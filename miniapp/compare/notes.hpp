#pragma once
// The warnings `miniapp compare` gives about single cases (docs/compare.md, "Warnings"): the
// parameters that differ between a case's rows in two runs, and every case's notes gathered into
// one line per kind.
#include "compare/compare.hpp"

#include <string>
#include <vector>

namespace miniapp {
namespace compare {

// A warning about one case: what is wrong (the same text for every case it applies to, so the
// cases can be counted under it) and the case.
struct CaseNote {
  std::string what, where;
};

// The notes on case `where`'s row in run `other_name` against the baseline's row: each parameter
// both variants use that differs (alpha, beta, seed, repetitions, warmup, the timing of samples,
// team_size, shape, in_place; pinned where a device backend is involved).
void param_notes(const std::string& where, const Row& base, const Row& other,
                 const std::string& base_name, const std::string& other_name, bool on_device,
                 std::vector<CaseNote>& notes);

// "<what> in 3 cases: a, b, c" per kind of note, in the order first seen, with at most six cases
// named ("... and 2 more").
std::vector<std::string> aggregate(const std::vector<CaseNote>& notes);

} // namespace compare
} // namespace miniapp
