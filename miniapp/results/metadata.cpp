#include "core/version.hpp"
#include "results/metadata.hpp"

#include "results/console.hpp"
#include "results/run_id.hpp"
#include "core/process.hpp"
#include "jobs/scheduler.hpp"

#include "core/compat.hpp"
#include "kernels/vendor_blas.hpp"
#include "core/case_fields.hpp"
#include "core/backends.hpp"
#include "core/device_info.hpp"
#include "core/host_isa.hpp"
#include "plan/config_hash.hpp"

#include <Kokkos_Core.hpp>
#include <hwloc.h>

#include <chrono>
#include <climits>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <sstream>
#include <thread>
#include <unistd.h>

extern char** environ;

namespace miniapp {

std::string iso8601_now() {
  const auto now = std::chrono::system_clock::now();
  const std::time_t t = std::chrono::system_clock::to_time_t(now);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::string kokkos_configuration() {
  std::ostringstream os;
  Kokkos::print_configuration(os, false);
  return os.str();
}

nlohmann::json case_to_json(const Case& c) {
  nlohmann::json j = {{"index", c.index}, {"id", c.id()}};
  for (const auto& f : case_fields())
    j[f.name] = case_value(f, c);
  return j;
}

nlohmann::json plan_to_json(const Plan& plan) {
  const auto& s = plan.settings;
  nlohmann::json cases = nlohmann::json::array();
  for (const auto& c : plan.cases)
    cases.push_back(case_to_json(c));
  return {
      {"name", s.name},
      {"description", s.description},
      {"backend", plan.backend},
      {"precision", s.precision},
      {"warmup", s.warmup},
      {"repetitions", s.repetitions},
      {"validation", {{"enabled", s.validate}, {"rtol", s.rtol}}},
      {"output", {{"directory", s.output_directory}, {"formats", s.formats}, {"print", s.print}}},
      {"pinned", s.pinned},
      {"energy", s.energy},
      {"reuse_ceilings", s.reuse_ceilings},
      {"mpi", {{"grid", {s.grid_p, s.grid_q}}, {"panel", s.panel}, {"transport", s.transport}}},
      {"cases", cases}};
}

namespace {
// How busy the host was when the run started: timings on a loaded machine are noise
// (`miniapp compare` warns). Linux only; null elsewhere.
nlohmann::json load_average() {
  std::ifstream in("/proc/loadavg");
  double l1 = 0, l5 = 0, l15 = 0;
  if (!(in >> l1 >> l5 >> l15))
    return nullptr;
  return {l1, l5, l15};
}
} // namespace

std::string json_text(const nlohmann::json& doc, int indent) {
  return doc.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string utf8_clean(const std::string& s) {
  // json_text replaces invalid sequences with U+FFFD; parsing back gives the clean text.
  return nlohmann::json::parse(json_text(nlohmann::json(s))).get<std::string>();
}

std::string default_label(const std::string& backend, int ranks, int threads,
                          const std::string& device, const std::string& host) {
  // On a device backend the host threads do not compute: the label gives the ranks alone.
  std::string s =
      backend + " " +
      (host_backend(backend) ? std::to_string(ranks) + "x" + std::to_string(threads)
                             : std::to_string(ranks) + (ranks == 1 ? " rank" : " ranks"));
  if (!device.empty())
    s += " on " + device;
  if (!host.empty())
    s += " (" + host + ")";
  return s;
}

nlohmann::json run_environment() {
  // Open MPI's transport selection (OMPI_MCA_btl=self,tcp: the transports it may use; pml, mtl,
  // osc and their parameters), not the launcher's own OMPI_MCA_orte_* and ess settings.
  const std::string prefixes[] = {"OMP_",
                                  "KOKKOS_",
                                  "OMPI_MCA_btl",
                                  "OMPI_MCA_pml",
                                  "OMPI_MCA_mtl",
                                  "OMPI_MCA_osc",
                                  jobs::site_scheduler().variable_prefix()};
  static const char* const names[] = {"CUDA_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES",
                                      "HIP_VISIBLE_DEVICES", "LOADEDMODULES"};
  nlohmann::json env = nlohmann::json::object();
  for (char** e = environ; *e; ++e) {
    const std::string kv = *e;
    const auto eq = kv.find('=');
    if (eq == std::string::npos)
      continue;
    const std::string name = kv.substr(0, eq);
    bool wanted = false;
    for (const std::string& p : prefixes)
      wanted = wanted || name.rfind(p, 0) == 0;
    for (const char* n : names)
      wanted = wanted || name == n;
    if (wanted)
      env[utf8_clean(name)] = utf8_clean(kv.substr(eq + 1));
  }
  return env;
}

namespace {
// "0-3,8" as hwloc writes CPU sets.
std::string cpuset_list(hwloc_const_bitmap_t set) {
  char* text = nullptr;
  if (hwloc_bitmap_list_asprintf(&text, set) < 0 || !text)
    return "";
  std::string out = text;
  std::free(text);
  return out;
}
} // namespace

nlohmann::json cpu_topology() {
  hwloc_topology_t topo = nullptr;
  if (hwloc_topology_init(&topo) != 0)
    return nullptr;
  if (hwloc_topology_load(topo) != 0) {
    hwloc_topology_destroy(topo);
    return nullptr;
  }
  const auto count = [&](hwloc_obj_type_t t) { return hwloc_get_nbobjs_by_type(topo, t); };
  nlohmann::json j = {{"packages", count(HWLOC_OBJ_PACKAGE)},
                      {"cores", count(HWLOC_OBJ_CORE)},
                      {"pus", count(HWLOC_OBJ_PU)},
                      {"numa_nodes", count(HWLOC_OBJ_NUMANODE)},
                      {"machine_cpus", cpuset_list(hwloc_topology_get_topology_cpuset(topo))}};
  // The process binding (inherited from mpiexec/srun/taskset): its threads run only there.
  hwloc_bitmap_t bound = hwloc_bitmap_alloc();
  if (bound && hwloc_get_cpubind(topo, bound, HWLOC_CPUBIND_PROCESS) == 0) {
    j["process_binding"] = cpuset_list(bound);
    j["bound_cpus"] = hwloc_bitmap_weight(bound);
    j["bound_to_whole_machine"] =
        hwloc_bitmap_isincluded(hwloc_topology_get_topology_cpuset(topo), bound) != 0;
  }
  hwloc_bitmap_free(bound);
  hwloc_topology_destroy(topo);
  return j;
}

nlohmann::json collect_metadata(const Plan& plan, const ParallelInfo& par,
                                const LaunchInfo& launch) {
  const DeviceInfo dev = device_info(plan.backend);
  const Parallelism spread = describe_parallelism(par.ranks, plan.backend);
  const nlohmann::json env = run_environment();
  nlohmann::json slurm = nlohmann::json::object();
  for (const auto& kv : env.items())
    if (kv.key().rfind(jobs::site_scheduler().variable_prefix(), 0) == 0)
      slurm[kv.key()] = kv.value();
  // Host threads per rank: the backend's own on a host backend (Serial: 1), else the host
  // execution space's (it prepares, copies and checks the data for the device).
  const bool on_host = host_backend(plan.backend);
  const int threads =
      on_host ? dev.concurrency : compat::concurrency(Kokkos::DefaultHostExecutionSpace());
  nlohmann::json argv = nlohmann::json::array(), sets = nlohmann::json::array();
  std::string command;
  for (const auto& a : launch.argv) {
    argv.push_back(utf8_clean(a));
    command += (command.empty() ? "" : " ") + utf8_clean(a);
  }
  for (const auto& o : launch.overrides)
    sets.push_back(utf8_clean(o));
  std::string config_path = launch.config_path;
  char resolved[PATH_MAX];
  if (!config_path.empty() && ::realpath(config_path.c_str(), resolved))
    config_path = resolved;
  nlohmann::json modules = nlohmann::json::array();
  if (env.contains("LOADEDMODULES")) {
    std::stringstream ss(env["LOADEDMODULES"].get<std::string>());
    for (std::string m; std::getline(ss, m, ':');)
      if (!m.empty())
        modules.push_back(m);
  }
  const std::string host = host_name();
  const HostIsa isa = host_isa();
  return {
      {"run_id", new_run_id(host)}, // the history database's key
      {"label", launch.label.empty()
                    ? default_label(plan.backend, par.ranks, threads, dev.name, host)
                    : utf8_clean(launch.label)},
      {"miniapp_version", version()},
      {"git_revision", git_revision()},
      {"kokkos_version", compat::kokkos_version_string()},
      {"kokkos_configuration", kokkos_configuration()},
      {"backends_compiled", compiled_backends()},
      {"backend", plan.backend},
      {"default_execution_space", default_backend()},
      {"device_name", dev.name},
      {"device_memory_bytes", dev.memory_bytes},
      {"concurrency", dev.concurrency},
      {"threads_per_rank", threads},
      {"host_name", host},
      // The writing process, so that `run --resume` refuses a directory whose run still goes.
      {"process", {{"pid", long(::getpid())}, {"start_ticks", process_start_ticks(::getpid())}}},
      {"host_cpus", std::thread::hardware_concurrency()},
      {"cpu_topology", cpu_topology()},
      {"host_isa", {{"built_for", isa.built_for}, {"offered", isa.offered}}},
      {"load_average", load_average()},
      {"compiler", compiler_description()},
      {"host_blas", kernels::host_blas_name()},
      {"mpi_library", par.mpi_library},
      {"mpi_ranks", par.ranks},
      {"mpi_grid", {par.grid_p, par.grid_q}},
      {"devices_per_rank", spread.devices_per_rank},
      {"config_hash", plan.config_hash},
      {"experiment_hash", experiment_hash(plan)},
      {"config_path", utf8_clean(config_path)},
      {"command_line", command},
      {"argv", argv},
      {"overrides", sets},
      {"environment", env},
      {"loaded_modules", modules},
      {"slurm", slurm},
      {"slurm_job_id", slurm.contains("SLURM_JOB_ID") ? slurm["SLURM_JOB_ID"] : nlohmann::json()}};
}

} // namespace miniapp
