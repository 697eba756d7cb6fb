#pragma once
// The config hash names the experiment a plan measures, not the file it came from: a canonical
// text of everything that decides what is measured (after --set, defaults and sweeps), hashed.
// Comments, formatting, key order, name, description, output.* and printing leave it unchanged;
// docs/config.md says what counts.
#include <string>

namespace miniapp {

struct Plan;

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
