#include "jobs/jobscript.hpp"

#include "config/limits.hpp"
#include "config/yaml_strict.hpp"
#include "jobs/shell_context.hpp"

#include <cctype>
#include <cstdint>
#include <cstring>
#include <stdexcept>

namespace miniapp::jobs {

const std::map<std::string, std::string>& embedded_job_templates(); // templates.cpp (generated)

using config::ConfigError;

namespace {

// A value written unquoted (in #SBATCH lines and comments as well as in shell code) must be a
// plain token; the callers only pass numbers, checked times and fixed names, so this is a guard.
std::string token(const std::string& what, const std::string& s) {
  const bool plain =
      !s.empty() && s.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnop"
                                        "qrstuvwxyz0123456789._:-") == std::string::npos;
  if (!plain)
    throw ConfigError(what + " '" + comment_text(s) + "' is not a plain word for a job script");
  return s;
}

std::string words(const std::vector<std::string>& quoted) {
  std::string out;
  for (const auto& w : quoted)
    out += (out.empty() ? "" : " ") + w;
  return out;
}

// "label:line:col" of a byte offset in the template.
std::string position(const std::string& label, const std::string& text, std::size_t at) {
  std::size_t line = 1, col = 1;
  for (std::size_t i = 0; i < at && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      col = 1;
    } else {
      ++col;
    }
  }
  return label + ":" + std::to_string(line) + ":" + std::to_string(col);
}

// Why a value of kind `fill` is not inert where it stands, in context `where` on the line of
// `text` that starts at `line` ("" when it is).
std::string misplaced(Fill fill, ShellContext where, const std::string& text, std::size_t line) {
  switch (fill) {
  case Fill::token:
    return "";
  case Fill::comment:
    if (where != ShellContext::comment)
      return "is text for a comment line; here, outside a comment, the shell would expand it";
    for (const char* read : {"#SBATCH", "#!"})
      if (text.compare(line, std::strlen(read), read) == 0)
        return std::string("is text for a comment line; on a ") + read +
               " line its words would be read as options";
    return "";
  case Fill::words:
    if (where == ShellContext::code)
      return "";
    return where == ShellContext::comment
               ? "is shell words; in a comment a newline in them would end the comment"
               : "is shell words, already quoted; inside quotes or a here-document the shell "
                 "would expand them: write it unquoted (e.g. CONFIG=@@CONFIG@@)";
  }
  return "";
}

} // namespace

std::string job_file_name(const std::string& s) {
  std::string out;
  for (char c : s)
    out +=
        (std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-') ? c : '_';
  return out.substr(0, 200);
}

std::string shell_quote_job_pattern(const std::string& s) {
  // Each piece between "%j" quoted on its own, the job id expanded between them.
  std::string out;
  std::size_t from = 0;
  for (std::size_t at = s.find("%j"); at != std::string::npos; at = s.find("%j", from)) {
    out += shell_quote(s.substr(from, at - from)) + "\"${SLURM_JOB_ID}\"";
    from = at + 2;
  }
  return out + shell_quote(s.substr(from));
}

std::string render_template(const std::string& text, const std::string& label,
                            const std::map<std::string, Placeholder>& values,
                            const std::map<std::string, std::vector<std::string>>& blocks) {
  const std::vector<ShellContext> where = shell_contexts(text);
  std::string out;
  out.reserve(text.size() * 2);
  std::size_t pos = 0;
  std::size_t line = 0, scanned = 0; // where the line of the last placeholder starts
  while (pos < text.size()) {
    const std::size_t open = text.find("@@", pos);
    if (open == std::string::npos) {
      out.append(text, pos, std::string::npos);
      break;
    }
    const std::size_t close = text.find("@@", open + 2);
    // A newline between the two (searched up to `close` only: a long line stays linear).
    if (close == std::string::npos ||
        std::memchr(text.data() + open, '\n', close - open) != nullptr)
      throw ConfigError(position(label, text, open) +
                        ": '@@' opens a placeholder that is not closed by '@@' on the same line");
    const std::string key = text.substr(open + 2, close - open - 2);
    const bool line_start =
        open >= 1 && text[open - 1] == '#' && (open == 1 || text[open - 2] == '\n');
    const bool line_end = close + 2 == text.size() || text[close + 2] == '\n';
    const auto block = blocks.find(key);
    if (block != blocks.end()) {
      if (!line_start || !line_end)
        throw ConfigError(position(label, text, open) + ": @@" + key +
                          "@@ stands for whole lines: write it alone on a line as #@@" + key +
                          "@@");
      if (where[open - 1] != ShellContext::comment)
        throw ConfigError(position(label, text, open) + ": #@@" + key +
                          "@@ stands for lines of shell code: it must not be inside quotes or a "
                          "here-document");
      out.append(text, pos, open - 1 - pos); // without the '#'
      for (const auto& l : block->second)
        out += l + "\n";
      pos = close + 2 == text.size() ? close + 2 : close + 3; // and the line's newline
      continue;
    }
    const auto value = values.find(key);
    if (value == values.end()) {
      std::string known;
      for (const auto& kv : values)
        known += (known.empty() ? "" : ", ") + kv.first;
      for (const auto& kv : blocks)
        known += ", #" + kv.first;
      throw ConfigError(position(label, text, open) + ": unknown placeholder @@" +
                        comment_text(key.substr(0, 40)) + "@@ (known: " + known + ")");
    }
    for (; scanned < open; ++scanned) // each byte once over the whole template
      if (text[scanned] == '\n')
        line = scanned + 1;
    const std::string wrong = misplaced(value->second.fill, where[open], text, line);
    if (!wrong.empty())
      throw ConfigError(position(label, text, open) + ": @@" + key + "@@ " + wrong);
    out.append(text, pos, open - pos);
    out += value->second.text;
    pos = close + 2;
  }
  return out;
}

std::string read_job_template(const std::string& path) {
  // The same bounded read as configs and profiles (config/limits.hpp: kMaxFileBytes).
  return check_job_template(config::read_text_file(path, "job template"), path);
}

std::string check_job_template(const std::string& text, const std::string& label) {
  if (text.empty())
    throw ConfigError(label + ":1:1: the job template is empty");
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\0')
      throw ConfigError(position(label, text, i) +
                        ": the job template has a NUL byte (a binary file, not a bash script)");
    if (text[i] == '\r' && (i + 1 == text.size() || text[i + 1] != '\n'))
      throw ConfigError(position(label, text, i) +
                        ": a carriage return that does not end a line (bash would read it as "
                        "part of a word)");
    if (text[i] != '\r')
      out += text[i];
  }
  return out;
}

const std::string& job_template(const std::string& name) {
  const auto& all = embedded_job_templates();
  const auto it = all.find(name);
  if (it == all.end())
    throw std::logic_error("no job template '" + name + "'");
  return it->second;
}

std::vector<std::string> job_template_names() {
  std::vector<std::string> names;
  for (const auto& kv : embedded_job_templates())
    names.push_back(kv.first);
  return names;
}

JobLayout layout_job(const SystemProfile& sys, const JobRequest& req) {
  const std::string on = " on system '" + sys.name + "' (" + sys.file + ")";
  JobLayout l;
  if (req.nodes < 1)
    throw ConfigError("--nodes must be at least 1, got " + std::to_string(req.nodes));
  if (sys.max_nodes > 0 && req.nodes > sys.max_nodes)
    throw ConfigError("--nodes " + std::to_string(req.nodes) + " exceeds max_nodes " +
                      std::to_string(sys.max_nodes) + on);
  if (req.ranks_per_node < 0)
    throw ConfigError("--ranks-per-node must be at least 1, got " +
                      std::to_string(req.ranks_per_node));
  l.nodes = req.nodes;
  // One rank per node unless asked: a GPU node's GPU count would silently turn a single-GPU
  // benchmark into a distributed run with other timings.
  l.ranks_per_node = req.ranks_per_node > 0   ? req.ranks_per_node
                     : sys.ranks_per_node > 0 ? sys.ranks_per_node
                                              : 1;
  if (sys.gpu() && l.ranks_per_node > sys.gpus_per_node)
    throw ConfigError(std::to_string(l.ranks_per_node) + " ranks per node exceed the " +
                      std::to_string(sys.gpus_per_node) + " GPUs per node" + on +
                      " (one rank per GPU)");
  if (l.ranks_per_node > sys.cores_per_node)
    throw ConfigError(std::to_string(l.ranks_per_node) + " ranks per node exceed the " +
                      std::to_string(sys.cores_per_node) + " cores per node" + on);
  if (std::int64_t(l.nodes) * l.ranks_per_node > config::limits::kMaxJobRanks)
    throw ConfigError("--nodes x ranks per node is more than " +
                      std::to_string(config::limits::kMaxJobRanks) + " ranks");
  l.cpus_per_task = sys.cores_per_node / l.ranks_per_node;
  l.time = req.time.empty() ? sys.time : req.time;
  if (!valid_slurm_time(l.time))
    throw ConfigError("--time '" + comment_text(l.time) +
                      "' is not a Slurm time (MM, HH:MM:SS or D-HH:MM:SS, minutes and seconds "
                      "below 60, hours below 24 after a day count)");
  l.own_template = !req.template_file.empty() || !sys.template_file.empty();
  l.template_name = !req.template_file.empty()   ? req.template_file
                    : !sys.template_file.empty() ? sys.template_file
                    : sys.gpu()                  ? "gpu"
                                                 : "openmp";
  return l;
}

std::vector<std::string> profile_directives(const SystemProfile& sys) {
  std::vector<std::string> sbatch;
  if (!sys.partition.empty())
    sbatch.push_back("#SBATCH --partition=" + token("partition", sys.partition));
  if (!sys.account.empty())
    sbatch.push_back("#SBATCH --account=" + token("account", sys.account));
  if (!sys.qos.empty())
    sbatch.push_back("#SBATCH --qos=" + token("qos", sys.qos));
  return sbatch;
}

std::vector<std::string> site_lines(const SystemProfile& sys) {
  std::vector<std::string> site;
  site.push_back("# From system profile " + comment_text(sys.name) +
                 ": modules, environment, setup.");
  for (const auto& m : sys.modules)
    site.push_back("module load " + shell_quote(m));
  for (const auto& kv : sys.environment)
    site.push_back("export " + token("environment variable", kv.first) + "=" +
                   shell_quote(kv.second));
  // The profile's `setup` lines are the one place where a profile writes shell code, on purpose
  // (site commands); they are copied as they are and never filled in.
  for (const auto& line : sys.setup)
    site.push_back(comment_text(line));
  if (sys.modules.empty() && sys.environment.empty() && sys.setup.empty())
    site.push_back("# (nothing to load on this system)");
  return site;
}

std::string render_jobscript(const SystemProfile& sys, const JobRequest& req) {
  const JobLayout l = layout_job(sys, req);
  const bool own_template = l.own_template;
  if (own_template && req.template_text.empty())
    throw ConfigError(l.template_name + ":1:1: the job template is empty");
  const std::string text = own_template ? check_job_template(req.template_text, l.template_name)
                                        : job_template(l.template_name);

  // #SBATCH lines are read by sbatch only (a comment to bash): single lines suffice.
  std::vector<std::string> sbatch = profile_directives(sys);
  // Benchmarks want the node to themselves; a multi-node GPU job always does (network, GPUs).
  if (req.exclusive || (sys.gpu() && l.nodes > 1))
    sbatch.push_back("#SBATCH --exclusive");
  // The command line's --hint wins over the profile's, as --time and --ranks-per-node do.
  const std::string& hint = req.hint.empty() ? sys.hint : req.hint;
  if (!hint.empty())
    sbatch.push_back("#SBATCH --hint=" + token("--hint", hint));
  for (const auto& o : sys.sbatch_options)
    sbatch.push_back("#SBATCH " + comment_text(o));

  const std::vector<std::string> site = site_lines(sys);

  std::vector<std::string> run_args;
  // A template with @@OUTPUT_DIR@@ passes the directory itself (--output-dir, or --resume when it
  // holds results); an older site template gets it in RUN_ARGS, as before.
  const bool template_resumes = text.find("@@OUTPUT_DIR@@") != std::string::npos;
  if (!req.output_dir.empty() && !template_resumes) {
    run_args.push_back("--output-dir");
    run_args.push_back(shell_quote_job_pattern(req.output_dir));
  }
  if (req.rounds > 1) {
    run_args.push_back("--rounds");
    run_args.push_back(std::to_string(req.rounds));
  }
  if (!req.results_dir.empty() || !req.overrides.empty()) {
    run_args.push_back("--set");
    if (!req.results_dir.empty())
      run_args.push_back(shell_quote("output.directory=" + req.results_dir));
    for (const auto& o : req.overrides)
      run_args.push_back(shell_quote(o));
  }
  if (!sys.references.empty()) { // the profile's references (docs/history.md)
    run_args.push_back("--references");
    run_args.push_back(shell_quote(sys.references));
  }
  std::vector<std::string> launcher_options;
  for (const auto& o : sys.launcher_options)
    launcher_options.push_back(shell_quote(o));

  const std::string gpu_var =
      sys.backend == "hip" ? "ROCR_VISIBLE_DEVICES" : "CUDA_VISIBLE_DEVICES";
  const auto plain = [](const std::string& what, const std::string& v) {
    return Placeholder(token(what, v), Fill::token);
  };
  const auto comment = [](const std::string& v) {
    return Placeholder(comment_text(v), Fill::comment);
  };
  const std::map<std::string, Placeholder> values = {
      // Plain tokens (numbers, checked names): safe quoted or not, in #SBATCH lines too.
      {"JOB_NAME", plain("job name", job_file_name("miniapp-" + req.experiment))},
      {"NODES", plain("nodes", std::to_string(l.nodes))},
      {"RANKS_PER_NODE", plain("ranks per node", std::to_string(l.ranks_per_node))},
      {"RANKS", plain("ranks", std::to_string(l.ranks()))},
      {"CPUS_PER_TASK", plain("cpus per task", std::to_string(l.cpus_per_task))},
      {"TIME", plain("time", l.time)},
      {"BACKEND", plain("backend", sys.backend)},
      {"GPU_VISIBLE_VAR", plain("GPU variable", gpu_var)},
      {"STOP_MARGIN_S", plain("stop margin", std::to_string(req.stop_margin_s))},
      // Comment text: one line each, in comments only.
      {"SYSTEM", comment(sys.name + (sys.description.empty() ? "" : ": " + sys.description))},
      {"SYSTEM_FILE", comment(sys.file)},
      {"COMMAND", comment(req.command)},
      {"TEMPLATE",
       comment(own_template ? l.template_name : "jobscripts/" + l.template_name + ".sh")},
      // Shell words, single-quoted, in unquoted code only.
      {"MINIAPP", shell_quote(sys.miniapp.empty() ? req.miniapp : sys.miniapp)},
      {"CONFIG", shell_quote(req.config)},
      {"RUN_ARGS", words(run_args)},
      {"OUTPUT_DIR", shell_quote_job_pattern(req.output_dir)},
      {"LAUNCHER", shell_quote(sys.launcher)},
      {"LAUNCHER_OPTIONS", words(launcher_options)},
      {"CPU_BIND", shell_quote(sys.cpu_bind)},
      {"GPU_BIND", shell_quote(sys.gpu_bind)},
  };
  std::vector<std::string> stop_signal; // B: this shell only; the template forwards it
  if (req.stop_margin_s > 0)
    stop_signal.push_back("#SBATCH --signal=B:USR1@" + std::to_string(req.stop_margin_s));
  const std::map<std::string, std::vector<std::string>> blocks = {
      {"SBATCH_OPTIONS", sbatch}, {"SITE", site}, {"STOP_SIGNAL", stop_signal}};
  const std::string label =
      own_template ? l.template_name : "jobscripts/" + l.template_name + ".sh";
  return render_template(text, label, values, blocks);
}

} // namespace miniapp::jobs
