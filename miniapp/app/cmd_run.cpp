// `miniapp run` and `miniapp validate`: config -> plan -> run -> report.
#include "app/commands.hpp"
#include "app/load_plan.hpp"
#include "app/run_extras.hpp" // issue 17

#include "config/config.hpp"
#include "parallel/distributed_runner.hpp"
#include "plan/plan.hpp"
#include "report/console.hpp"
#include "report/metadata.hpp"
#include "report/results_writer.hpp"
#include "run/backends.hpp"
#include "run/ceilings.hpp"
#include "run/device_info.hpp"
#include "run/runner.hpp"

#include <algorithm>
#include <fstream>
#include <iostream>
#include <new>
#include <sstream>
#include <unistd.h>

namespace miniapp {

namespace {
// std::bad_alloc's what() does not say what ran out; every message names the resource.
std::string failure_text(const std::exception& e) {
  if (dynamic_cast<const std::bad_alloc*>(&e))
    return "out of host memory (resource: host memory)";
  return e.what();
}

// Rank 0 reads the file; every rank parses the same bytes, so a config error is the same
// everywhere.
config::ExperimentConfig read_config(const RunArgs& args, const MpiEnv& mpi) {
  if (mpi.size() == 1)
    return config::load_config(args.config, args.overrides);
  std::string packet; // 'T' + text, or 'E' + error message
  if (mpi.rank() == 0) {
    try {
      packet = "T" + config::read_text_file(args.config, "config file");
    } catch (const config::ConfigError& e) {
      packet = "E" + std::string(e.what());
    }
  }
  packet = mpi.broadcast(packet);
  if (packet[0] == 'E')
    throw config::ConfigError(packet.substr(1));
  return config::parse_config(args.config, packet.substr(1), args.overrides);
}
} // namespace

// Loads and expands the config; sizes are checked against the backend's memory (per rank).
Plan load_plan(const RunArgs& args, const MpiEnv& mpi) {
  const auto cfg = read_config(args, mpi);
  const std::string backend = [&] {
    // Check the backend before asking it for its memory; make_plan reports it with its position.
    try {
      return resolve_backend(cfg.settings.backend);
    } catch (...) {
      return default_backend();
    }
  }();
  PlanLimits limits;
  limits.ranks = args.ranks > 0 ? args.ranks : mpi.size();
  const auto comp = compiled_backends();
  if (std::find(comp.begin(), comp.end(), backend) != comp.end()) {
    const DeviceInfo dev = device_info(backend);
    limits.memory_bytes = dev.memory_bytes;
    limits.memory_name = dev.name + " (" + backend + ")";
  }
  return make_plan(cfg, limits);
}

int cmd_validate(const RunArgs& args, const MpiEnv& mpi) {
  try {
    const Plan plan = load_plan(args, mpi);
    if (mpi.rank() == 0)
      print_plan(std::cout, plan);
    return kOk;
  } catch (const config::ConfigError& e) {
    if (mpi.rank() == 0)
      std::cerr << e.what() << std::endl;
    return kConfigError;
  } catch (const std::bad_alloc& e) {
    std::cerr << "miniapp: rank " << mpi.rank() << ": " << failure_text(e)
              << " while expanding the config" << std::endl;
    return kRuntimeError;
  }
}

int cmd_run(const RunArgs& args, const MpiEnv& mpi) {
#ifdef MINIAPP_HAVE_MPI
  if (mpi.size() > 1)
    return parallel::run_distributed(args, mpi);
#endif
  Plan plan;
  try {
    plan = load_plan(args, mpi);
  } catch (const config::ConfigError& e) {
    if (mpi.rank() == 0)
      std::cerr << e.what() << std::endl;
    return kConfigError;
  } catch (const std::bad_alloc& e) {
    std::cerr << "miniapp: rank " << mpi.rank() << ": " << failure_text(e)
              << " while expanding the config" << std::endl;
    return kRuntimeError;
  }
  RunExtras extras; // issue 17: --references, --db
  if (const int c = extras.open(args, plan))
    return c;
  install_stop_handlers();
  ParallelInfo par;
  par.ranks = mpi.size();
  par.mpi_library = mpi.library();
  std::unique_ptr<ResultsWriter> writer;
  try {
    const std::string dir =
        create_run_directory(plan.settings.output_directory, plan.settings.name, args.output_dir);
    writer =
        std::make_unique<ResultsWriter>(dir, plan, collect_metadata(plan, par, launch_info(args)));
  } catch (const std::exception& e) {
    std::cerr << "miniapp: rank " << mpi.rank() << ": " << failure_text(e) << std::endl;
    return kRuntimeError;
  }
  extras.attach(*writer); // issue 17
  if (!args.quiet) {
    print_plan(std::cout, plan);
    std::cout << "parallelism: " << describe_parallelism(plan.ranks, plan.backend).summary()
              << "\nresults: " << writer->directory() << std::endl;
  }
  MeasuredCeilings ceilings(plan.backend);
  RunOptions opt;
  opt.print = args.print;
  opt.ceilings = &ceilings;
  Progress progress(std::cerr, plan.cases.size(), isatty(STDERR_FILENO) != 0);
  std::vector<CaseResult> results;
  try {
    results = run_plan(plan, opt, [&](const CaseResult& r) {
      writer->add(r);
      progress.case_done(r);
    });
  } catch (const std::exception& e) {
    writer->finish(RunStatus::failed);
    std::cerr << "miniapp: rank " << mpi.rank() << ": " << failure_text(e) << std::endl;
    return kRuntimeError;
  }
  progress.finish();
  const bool interrupted = stop_requested() || results.size() < plan.cases.size();
  if (const std::string error =
          writer->finish(interrupted ? RunStatus::interrupted : RunStatus::complete);
      !error.empty()) {
    std::cerr << "miniapp: rank " << mpi.rank() << ": " << error << std::endl;
    return kRuntimeError;
  }
  print_results_table(std::cout, plan, results);
  ceilings.print(std::cout);
  std::cout << "results written to " << writer->directory() << "/\n";
  int code = kOk;
  for (const auto& r : results) {
    if (r.status == Status::error) {
      std::cerr << "miniapp: rank " << mpi.rank() << ": " << r.c.id() << ": " << r.message << "\n";
      code = kRuntimeError;
    }
  }
  if (code == kOk)
    for (const auto& r : results)
      if (r.status == Status::invalid)
        code = kValidationFailed;
  if (interrupted) {
    const auto kept = std::count_if(results.begin(), results.end(), [](const CaseResult& r) {
      return r.status != Status::interrupted;
    });
    std::cerr << "miniapp: rank " << mpi.rank() << ": interrupted; " << kept << " of "
              << plan.cases.size() << " case(s) kept in " << writer->directory() << "\n";
    if (code == kOk)
      code = kRuntimeError;
  }
  if (code == kValidationFailed)
    std::cerr << "miniapp: validation FAILED for at least one case (rows marked invalid)\n";
  return extras.finish(*writer, code, std::cout, std::cerr); // issue 17: exit 5 when below
}

} // namespace miniapp
