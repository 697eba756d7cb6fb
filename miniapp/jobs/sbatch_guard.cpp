#include "jobs/sbatch_guard.hpp"

#include <algorithm>
#include <cstring>
#include <sstream>
#include <vector>

namespace miniapp::jobs {

namespace {

// sbatch's long options (Slurm 22.05, from its "option is ambiguous" lists), for getopt_long's
// rule that an exact name wins over the longer names it abbreviates (--gpus is not
// --gpus-per-task).
const std::vector<std::string> kSbatchLongOptions = {"account",
                                                     "acctg-freq",
                                                     "array",
                                                     "batch",
                                                     "begin",
                                                     "bb",
                                                     "bbf",
                                                     "chdir",
                                                     "cluster",
                                                     "cluster-constraint",
                                                     "clusters",
                                                     "comment",
                                                     "constraint",
                                                     "container",
                                                     "context",
                                                     "contiguous",
                                                     "core-spec",
                                                     "cores-per-socket",
                                                     "cpu-freq",
                                                     "cpus-per-gpu",
                                                     "cpus-per-task",
                                                     "deadline",
                                                     "delay-boot",
                                                     "dependency",
                                                     "distribution",
                                                     "error",
                                                     "exclude",
                                                     "exclusive",
                                                     "export",
                                                     "export-file",
                                                     "extra-node-info",
                                                     "get-user-env",
                                                     "gid",
                                                     "gpu-bind",
                                                     "gpu-freq",
                                                     "gpus",
                                                     "gpus-per-node",
                                                     "gpus-per-socket",
                                                     "gpus-per-task",
                                                     "gres",
                                                     "gres-flags",
                                                     "help",
                                                     "hint",
                                                     "hold",
                                                     "ignore-pbs",
                                                     "input",
                                                     "job-name",
                                                     "kill-on-invalid-dep",
                                                     "licenses",
                                                     "mail-type",
                                                     "mail-user",
                                                     "mcs-label",
                                                     "mem",
                                                     "mem-bind",
                                                     "mem-per-cpu",
                                                     "mem-per-gpu",
                                                     "mincpus",
                                                     "network",
                                                     "nice",
                                                     "no-kill",
                                                     "no-requeue",
                                                     "nodefile",
                                                     "nodelist",
                                                     "nodes",
                                                     "ntasks",
                                                     "ntasks-per-core",
                                                     "ntasks-per-gpu",
                                                     "ntasks-per-node",
                                                     "ntasks-per-socket",
                                                     "ntasks-per-tres",
                                                     "open-mode",
                                                     "output",
                                                     "overcommit",
                                                     "oversubscribe",
                                                     "parsable",
                                                     "partition",
                                                     "power",
                                                     "prefer",
                                                     "priority",
                                                     "profile",
                                                     "propagate",
                                                     "qos",
                                                     "quiet",
                                                     "reboot",
                                                     "requeue",
                                                     "reservation",
                                                     "signal",
                                                     "sockets-per-node",
                                                     "spread-job",
                                                     "switches",
                                                     "tasks-per-node",
                                                     "test-only",
                                                     "thread-spec",
                                                     "threads-per-core",
                                                     "time",
                                                     "time-min",
                                                     "tmp",
                                                     "uid",
                                                     "usage",
                                                     "use-min-nodes",
                                                     "verbose",
                                                     "version",
                                                     "wait",
                                                     "wait-all-nodes",
                                                     "wckey",
                                                     "wrap"};

// The options the templates and the generator write (jobscripts/*.sh, render_jobscript), with
// their aliases and short letters; a second copy from a profile would silently win or conflict
// (--hint: a profile's `hint` key, and jobscript's --hint over it).
struct Generated {
  const char* name;
  char letter; // 0: no short form
};
// clang-format off
const Generated kGenerated[] = {{"job-name", 'J'},      {"nodes", 'N'},        {"ntasks", 'n'},
                                {"ntasks-per-node", 0}, {"tasks-per-node", 0}, {"gpus-per-task", 0},
                                {"cpus-per-task", 'c'}, {"time", 't'},         {"partition", 'p'},
                                {"account", 'A'},       {"qos", 'q'},          {"output", 'o'},
                                {"hint", 0}};
// clang-format on

// sbatch's short options without a value (the others take the rest of the word or the next one).
constexpr const char* kShortFlags = "hksvHOQVW";

std::string long_form(const std::string& name) {
  return name == "tasks-per-node" ? "--ntasks-per-node" : "--" + name;
}

// The generated option a long option word ("--nod=8", "--nodes") names or may name.
std::string long_option(const std::string& word) {
  const std::string name = word.substr(2, word.find('=') - 2);
  if (name.empty())
    return ""; // "--": the end of the options
  const bool exact = std::find(kSbatchLongOptions.begin(), kSbatchLongOptions.end(), name) !=
                     kSbatchLongOptions.end();
  for (const auto& g : kGenerated) {
    const std::string full = g.name;
    if (full == name || (!exact && full.compare(0, name.size(), name) == 0))
      return long_form(full);
  }
  return "";
}

// The generated option a short option word ("-N8", "-vN", "-Cgpu") sets.
std::string short_option(const std::string& word) {
  for (std::size_t i = 1; i < word.size(); ++i) {
    for (const auto& g : kGenerated)
      if (g.letter != 0 && g.letter == word[i])
        return long_form(g.name);
    if (!std::strchr(kShortFlags, word[i]))
      return ""; // an option with a value: the rest of the word is its value
  }
  return "";
}

} // namespace

GeneratedOption generated_sbatch_option(const std::string& entry) {
  // Every word is checked, values included: sbatch splits the line at blanks (quotes aside), and
  // a word it reads as a value here could be an option to another Slurm.
  std::istringstream words(entry);
  for (std::string w; words >> w;) {
    std::string w_clean;
    for (char c : w)
      if (c != '"' && c != '\'')
        w_clean += c;
    if (w_clean.size() < 2 || w_clean[0] != '-')
      continue;
    const std::string o = w_clean[1] == '-' ? long_option(w_clean) : short_option(w_clean);
    if (!o.empty())
      return {o, w};
  }
  return {};
}

} // namespace miniapp::jobs
