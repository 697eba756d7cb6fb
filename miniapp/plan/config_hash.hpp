#pragma once
// The config hash names the experiment a plan measures, not the file it came from: a canonical
// text of everything that decides what is measured (after --set, defaults and sweeps), hashed.
// Comments, formatting, key order, name, description, output.* and printing leave it unchanged;
// docs/config.md says what counts.
#include <array>
#include <string>
#include <string_view>

namespace miniapp {

struct Plan;

// The config keys (as `--set` names them) that the hash leaves out, with everything under them:
// labels (name, description), where results go and what is printed (output.*), and how a run is
// made rather than what it measures (energy sampling, reused ceilings, mpi.transport; the rank
// count is no config key). canonical_experiment writes none of them; `run --resume` names only
// keys outside this list when it says where two configs differ (results/resume.cpp).
inline constexpr std::array<std::string_view, 6> kKeysOutsideConfigHash = {
    "name", "description", "output", "energy", "reuse_ceilings", "mpi.transport"};
// True for a key of the list or one under it ("output.formats.0").
bool outside_config_hash(std::string_view dotted_key);

// One line per setting, then one line per expanded case with every parameter (explicit input
// matrices included), numbers written exactly (integers as integers, doubles to 17 digits).
std::string canonical_experiment(const Plan& plan);
// FNV-1a 64 of canonical_experiment, as 16 hex digits.
std::string config_hash(const Plan& plan);
// The same without the backend line: one config run on OpenMP and on CUDA shares it, so compare
// tells "the same experiment on another backend" from "another experiment".
std::string experiment_hash(const Plan& plan);
std::string fnv1a_hex(const std::string& text);

} // namespace miniapp
