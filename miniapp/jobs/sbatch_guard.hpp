#pragma once
// Which options of a profile's `sbatch_options` entry sbatch would read as one the generator
// writes itself (--nodes, --time, ...). sbatch parses an #SBATCH line's words with getopt_long:
// any unambiguous prefix of a long option is that option (--nod=8 is --nodes=8), a value may be
// the next word (--nodes 8), aliases exist (--tasks-per-node), and short options cluster (-vN8).
#include <string>

namespace miniapp::jobs {

// The generated option (e.g. "--nodes") that a word of `entry` sets or may set, with the word;
// empty when none. A word that abbreviates several options is refused when any of them is
// generated (sbatch calls it ambiguous; a later Slurm may not).
struct GeneratedOption {
  std::string option; // "--nodes"
  std::string word;   // "--nod=8"
};
GeneratedOption generated_sbatch_option(const std::string& entry);

} // namespace miniapp::jobs
