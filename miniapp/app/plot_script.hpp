#pragma once
// The plot script (scripts/miniapp-plot.py, installed as bin/miniapp-plot), as `miniapp plot`,
// `miniapp report` and `miniapp history --plot` use it: found in one place, started in one place.
#include "report/compare.hpp"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace miniapp {

// What the plot script reads of the family table, so that it names no family itself: each
// family's rate and whether its variants read k, as a JSON list of {"name", "rate" ("gflops" or
// "gbs"), "reads_k"}. run_plot_script hands it (--families); miniapp-bench writes it into its
// JSON's context ("miniapp_families").
nlohmann::json family_facts();

// $MINIAPP_PLOT_SCRIPT, bin/miniapp-plot beside the program, or the source tree's
// scripts/miniapp-plot.py; "" when none is found.
std::string find_plot_script();

// Runs `/usr/bin/python3 script args...` and waits for it: spawned rather than exec'd, since MPI
// was initialised by main and must be finalised. With `log`, the script's stdout (the names of
// the files it wrote) is dropped and its stderr written to that file, whose first line is `why`
// when the script fails; without, both are this process's. Returns the script's exit status, or
// -1 with `why` when it could not start or was killed. A stop signal to this process (SIGTERM,
// SIGINT, SIGHUP, SIGQUIT) is passed on to the script, which is waited for; then StopSignal
// (app/commands.hpp) is thrown.
int run_plot_script(const std::string& script, const std::vector<std::string>& args,
                    const std::string& log, std::string& why);

struct PlotFile {
  std::string name;    // the file name the script gave it ("rate-axpby.svg")
  std::string content; // the file's bytes
};

// The plots the script draws of `runs` with `args` (--kind, --x, ...; the inputs, --output-dir
// and --format are added) in one `format` (png, svg, pdf), sorted by name. The runs are handed
// over as results.json files written from what was read (report/run_json.hpp), so a run from a
// results.csv or from the history database is drawn from the same rows as the tables show.
// Throws std::runtime_error saying why there are none (no script, no matplotlib, ...).
std::vector<PlotFile> plot_runs(const std::vector<compare::Run>& runs,
                                const std::vector<std::string>& args, const std::string& format);

} // namespace miniapp
