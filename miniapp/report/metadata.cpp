#include "version.hpp"
#include "report/metadata.hpp"

#include "report/console.hpp"

#include "compat.hpp"
#include "kernels/vendor_blas.hpp"
#include "run/backends.hpp"
#include "run/device_info.hpp"

#include <Kokkos_Core.hpp>

#include <chrono>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <sstream>
#include <thread>

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
  nlohmann::json j = {{"index", c.index},
                      {"id", c.id()},
                      {"family", c.family},
                      {"variant", c.variant},
                      {"precision", to_string(c.precision)},
                      {"m", c.m},
                      {"n", c.n},
                      {"k", c.k},
                      {"tile", c.tile},
                      {"tile_cols", c.tile_cols},
                      {"team_size", c.team_size},
                      {"alpha", c.alpha},
                      {"beta", c.beta},
                      {"in_place", c.in_place},
                      {"pinned", c.pinned},
                      {"init", c.init},
                      {"seed", c.seed}};
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
      {"mpi", {{"grid", {s.grid_p, s.grid_q}}, {"panel", s.panel}}},
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

nlohmann::json collect_metadata(const Plan& plan, const ParallelInfo& par) {
  const DeviceInfo dev = device_info(plan.backend);
  const Parallelism spread = describe_parallelism(par.ranks, plan.backend);
  nlohmann::json slurm = nlohmann::json::object();
  for (char** e = environ; *e; ++e) {
    const std::string kv = *e;
    if (kv.rfind("SLURM_", 0) == 0) {
      const auto eq = kv.find('=');
      slurm[kv.substr(0, eq)] = kv.substr(eq + 1);
    }
  }
  return {
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
      {"host_name", host_name()},
      {"host_cpus", std::thread::hardware_concurrency()},
      {"load_average", load_average()},
      {"compiler", compiler_description()},
      {"host_blas", kernels::host_blas_name()},
      {"mpi_library", par.mpi_library},
      {"mpi_ranks", par.ranks},
      {"mpi_grid", {par.grid_p, par.grid_q}},
      {"threads_per_rank", spread.threads_per_rank},
      {"devices_per_rank", spread.devices_per_rank},
      {"config_hash", plan.config_hash},
      {"slurm", slurm},
      {"slurm_job_id", slurm.contains("SLURM_JOB_ID") ? slurm["SLURM_JOB_ID"] : nlohmann::json()}};
}

} // namespace miniapp
