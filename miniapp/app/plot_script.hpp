#pragma once
// The plot script (scripts/miniapp-plot.py, installed as bin/miniapp-plot), as `miniapp plot`,
// `miniapp report` and `miniapp history --plot` use it: found in one place, started in one place.
#include "results/run.hpp"

#include <string>
#include <vector>

namespace miniapp {

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

// What the C++ side decides for the plots: the baseline run of the speedups and the measure
// (kernel, or end-to-end with the transfers). The script gets the runs as one plot table
// (compare/plot_rows.hpp) with these applied, so it holds no schema of its own.
struct PlotRequest {
  std::size_t baseline = 0;
  bool with_transfers = false;
};

// `miniapp plot`: the script draws the plot table of `runs` with `args` (--output-dir, --kind,
// --x, --format, --dpi), its output and messages the user's. Returns its exit status, or -1 with
// `why` when it was not found, could not start or was killed.
int draw_plots(const std::vector<compare::Run>& runs, const PlotRequest& request,
               const std::vector<std::string>& args, std::string& why);

// The plots the script draws of `runs` with `args` (--kind, --x, ...; --output-dir and --format
// are added) in one `format` (png, svg, pdf), sorted by name, from the same rows the tables show
// (a run read from a results.csv or the history database alike). Throws std::runtime_error
// saying why there are none (no script, no matplotlib, ...).
std::vector<PlotFile> plot_runs(const std::vector<compare::Run>& runs, const PlotRequest& request,
                                const std::vector<std::string>& args, const std::string& format);

} // namespace miniapp
