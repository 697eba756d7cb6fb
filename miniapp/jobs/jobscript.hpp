#pragma once
// Slurm job scripts from a template (jobscripts/*.sh, assembled from jobscripts/*.sh.in and the
// parts they share, jobscripts/parts/, and embedded in the program at build time, or a site's own
// file) and a system profile. The script launches `miniapp run CONFIG` and exits with
// its status. Rendering is one pass: substituted text is never scanned again, every value is
// quoted for the shell, and comment values are single lines, so no value can become a command.
#include "core/sinks.hpp"
#include "jobs/system_profile.hpp"

#include <map>
#include <string>
#include <vector>

namespace miniapp::jobs {

// What the user asked for; paths are absolute by the time they get here.
struct JobRequest {
  std::string config;                 // the experiment config, as the job will read it
  std::string experiment;             // its name (for the job name)
  std::vector<std::string> overrides; // --set key=value, passed on to miniapp run
  int nodes = 1;
  int ranks_per_node = 0;    // 0 = the profile's choice (1 when the profile names none)
  std::string time;          // empty = the profile's
  int rounds = 1;            // miniapp run --rounds N (given when above 1)
  std::string output_dir;    // exact run directory; "%j" becomes the job id; empty = none
  std::string results_dir;   // base for run directories (output.directory); empty = the config's
  std::string miniapp;       // the program the job runs
  std::string command;       // the command line that generated the script, for its header
  bool exclusive = false;    // #SBATCH --exclusive (always on for multi-node GPU jobs)
  std::string hint;          // #SBATCH --hint=VALUE; empty = the profile's (none if it has none)
  std::string template_file; // a site's own template; empty = the profile's or the built-in
  std::string template_text; // its text (read by the caller)
  // Seconds before the time limit at which Slurm sends SIGUSR1 (#SBATCH --signal=B:USR1@S), so
  // that the run stops after its current case; 0 = no signal (docs/jobs.md, "Resuming").
  int stop_margin_s = 0;
};

// The resources a request comes to on a system.
struct JobLayout {
  std::string template_name; // openmp or gpu (built-in), or the template file
  bool own_template = false; // template_name is a site's file (--template or the profile's)
  int nodes = 1;
  int ranks_per_node = 1;
  int cpus_per_task = 1;
  std::string time;
  int ranks() const { return nodes * ranks_per_node; }
};

// Throws config::ConfigError when the request does not fit the system.
JobLayout layout_job(const SystemProfile& system, const JobRequest& request);
std::string render_jobscript(const SystemProfile& system, const JobRequest& request);
// The profile's partition, account and qos as #SBATCH lines; the site section's lines (module
// loads, exported variables, the profile's setup). Shared by the job scripts and the study's
// collect job (jobs/scheduler.hpp).
std::vector<std::string> profile_directives(const SystemProfile& system);
std::vector<std::string> site_lines(const SystemProfile& system);

// What a placeholder's value is, and so where in a template it is inert (jobs/shell_context.hpp):
enum class Fill {
  token,   // a plain word ([A-Za-z0-9._:-]): anywhere, quoted or not, #SBATCH lines included
  comment, // one line of text: only in a comment, and not on a #SBATCH or #! line (read by
           // sbatch and the kernel)
  words,   // single-quoted shell words: only in unquoted code (inside "..." or '...' or a
           // here-document their quotes would not hold)
};
struct Placeholder {
  Placeholder(std::string v, Fill f = Fill::words) : text(std::move(v)), fill(f) {}
  Placeholder(const char* v) : text(v) {}
  std::string text;
  Fill fill = Fill::words;
};

// Fills each @@KEY@@ of `text` with values[KEY] in one pass, and each line "#@@KEY@@" with the
// lines of blocks[KEY] (only in code: a "#" that starts a comment line outside quotes). The values
// must already be of their kind (token(), comment_text(), shell_quote()). An unknown or
// unterminated placeholder, or one where its value would not be inert, throws config::ConfigError
// "label:line:col: ...".
std::string render_template(const std::string& text, const std::string& label,
                            const std::map<std::string, Placeholder>& values,
                            const std::map<std::string, std::vector<std::string>>& blocks);

// As shell_quote (core/sinks.hpp), with each "%j" turned into "${SLURM_JOB_ID}".
std::string shell_quote_job_pattern(const std::string& s);
// A site's template file, read with a bound (/dev/zero must not fill the memory): at most 1 MiB,
// then check_job_template.
std::string read_job_template(const std::string& path);
// A template's text as the renderer takes it: CRLF line ends (a copy edited on Windows) become
// LF, the script bash runs has LF only; empty, a NUL byte or a lone carriage return throws
// ConfigError("label:line:col: ...").
std::string check_job_template(const std::string& text, const std::string& label);
// Letters, digits, '.', '_' and '-' kept, anything else '_' (job names, file names).
std::string job_file_name(const std::string& s);

// The embedded templates (jobscripts/<name>.sh).
const std::string& job_template(const std::string& name);
std::vector<std::string> job_template_names();

} // namespace miniapp::jobs
