#include "jobs/jobscript.hpp"

#include "config/yaml_strict.hpp"

#include <cctype>
#include <map>
#include <stdexcept>

namespace miniapp::jobs {

const std::map<std::string, std::string>& embedded_job_templates(); // templates.cpp (generated)

using config::ConfigError;

namespace {

void replace_all(std::string& text, const std::string& from, const std::string& to) {
  for (std::size_t pos = text.find(from); pos != std::string::npos;
       pos = text.find(from, pos + to.size()))
    text.replace(pos, from.size(), to);
}

// Replaces the whole line "#@@KEY@@" with lines (none: the line goes).
void replace_line(std::string& text, const std::string& key,
                  const std::vector<std::string>& lines) {
  const std::string marker = "#@@" + key + "@@\n";
  std::string block;
  for (const auto& l : lines)
    block += l + "\n";
  replace_all(text, marker, block);
}

std::string words(const std::vector<std::string>& quoted) {
  std::string out;
  for (const auto& w : quoted)
    out += (out.empty() ? "" : " ") + w;
  return out;
}

std::string safe_name(const std::string& s) {
  std::string out;
  for (char c : s)
    out +=
        (std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-') ? c : '_';
  return out;
}

std::string one_line(std::string s) {
  for (char& c : s)
    if (c == '\n' || c == '\r')
      c = ' ';
  return s;
}

} // namespace

std::string shell_quote(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\' || c == '$' || c == '`')
      out += '\\';
    out += c;
  }
  return out + "\"";
}

std::string shell_quote_job_pattern(const std::string& s) {
  std::string out = shell_quote(s);
  replace_all(out, "%j", "${SLURM_JOB_ID}");
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
    throw ConfigError("--nodes must be at least 1");
  if (sys.max_nodes > 0 && req.nodes > sys.max_nodes)
    throw ConfigError("--nodes " + std::to_string(req.nodes) + " exceeds max_nodes " +
                      std::to_string(sys.max_nodes) + on);
  l.nodes = req.nodes;
  l.ranks_per_node = req.ranks_per_node > 0   ? req.ranks_per_node
                     : sys.ranks_per_node > 0 ? sys.ranks_per_node
                     : sys.gpu()              ? sys.gpus_per_node
                                              : 1;
  if (sys.gpu() && l.ranks_per_node > sys.gpus_per_node)
    throw ConfigError(std::to_string(l.ranks_per_node) + " ranks per node exceed the " +
                      std::to_string(sys.gpus_per_node) + " GPUs per node" + on +
                      " (one rank per GPU)");
  if (l.ranks_per_node > sys.cores_per_node)
    throw ConfigError(std::to_string(l.ranks_per_node) + " ranks per node exceed the " +
                      std::to_string(sys.cores_per_node) + " cores per node" + on);
  l.cpus_per_task = sys.cores_per_node / l.ranks_per_node;
  l.time = req.time.empty() ? sys.time : req.time;
  if (!valid_slurm_time(l.time))
    throw ConfigError("--time '" + l.time + "' is not a Slurm time (MM, HH:MM:SS or D-HH:MM:SS)");
  l.template_name = !sys.gpu() ? "openmp" : l.nodes > 1 ? "mpi-gpu" : sys.backend;
  return l;
}

std::string render_jobscript(const SystemProfile& sys, const JobRequest& req) {
  const JobLayout l = layout_job(sys, req);
  std::string s = job_template(l.template_name);

  std::vector<std::string> sbatch;
  if (!sys.partition.empty())
    sbatch.push_back("#SBATCH --partition=" + sys.partition);
  if (!sys.account.empty())
    sbatch.push_back("#SBATCH --account=" + sys.account);
  if (!sys.qos.empty())
    sbatch.push_back("#SBATCH --qos=" + sys.qos);
  for (const auto& o : sys.sbatch_options)
    sbatch.push_back("#SBATCH " + o);
  replace_line(s, "SBATCH_OPTIONS", sbatch);

  std::vector<std::string> site;
  site.push_back("# From system profile " + sys.name + ": modules, environment, setup.");
  for (const auto& m : sys.modules)
    site.push_back("module load " + shell_quote(m));
  for (const auto& kv : sys.environment)
    site.push_back("export " + kv.first + "=" + shell_quote(kv.second));
  for (const auto& line : sys.setup)
    site.push_back(line);
  if (sys.modules.empty() && sys.environment.empty() && sys.setup.empty())
    site.push_back("# (nothing to load on this system)");
  replace_line(s, "SITE", site);

  std::vector<std::string> run_args;
  if (!req.output_dir.empty()) {
    run_args.push_back("--output-dir");
    run_args.push_back(shell_quote_job_pattern(req.output_dir));
  }
  if (!req.results_dir.empty() || !req.overrides.empty()) {
    run_args.push_back("--set");
    if (!req.results_dir.empty())
      run_args.push_back(shell_quote("output.directory=" + req.results_dir));
    for (const auto& o : req.overrides)
      run_args.push_back(shell_quote(o));
  }
  std::vector<std::string> launcher_options;
  for (const auto& o : sys.launcher_options)
    launcher_options.push_back(shell_quote(o));

  const std::map<std::string, std::string> values = {
      {"JOB_NAME", safe_name("miniapp-" + req.experiment)},
      {"NODES", std::to_string(l.nodes)},
      {"RANKS_PER_NODE", std::to_string(l.ranks_per_node)},
      {"CPUS_PER_TASK", std::to_string(l.cpus_per_task)},
      {"TIME", l.time},
      {"SYSTEM", one_line(sys.name + (sys.description.empty() ? "" : ": " + sys.description))},
      {"SYSTEM_FILE", one_line(sys.file)},
      {"COMMAND", one_line(req.command)},
      {"BACKEND", sys.backend},
      {"GPU_VISIBLE_VAR", sys.backend == "hip" ? "ROCR_VISIBLE_DEVICES" : "CUDA_VISIBLE_DEVICES"},
      {"MINIAPP", shell_quote(sys.miniapp.empty() ? req.miniapp : sys.miniapp)},
      {"CONFIG", shell_quote(req.config)},
      {"RUN_ARGS", words(run_args)},
      {"LAUNCHER", sys.launcher},
      {"LAUNCHER_OPTIONS", words(launcher_options)},
      {"CPU_BIND", shell_quote(sys.cpu_bind)},
      {"GPU_BIND", shell_quote(sys.gpu_bind)},
  };
  for (const auto& kv : values)
    replace_all(s, "@@" + kv.first + "@@", kv.second);
  const auto left = s.find("@@");
  if (left != std::string::npos)
    throw std::logic_error("job template " + l.template_name +
                           " has an unknown placeholder near '" + s.substr(left, 40) + "'");
  return s;
}

} // namespace miniapp::jobs
