// `miniapp info` and `miniapp describe`.
#include "app/command.hpp"

#include <memory>
#include "core/version.hpp"
#include "core/sinks.hpp"
#include "core/text.hpp"
#include "app/commands.hpp"

#include "core/backend_names.hpp"
#include "config/limits.hpp"
#include "kernels/tile_index_case.hpp"
#include "core/host_isa.hpp"
#include "kernels/vendor_blas.hpp"
#include "core/size_math.hpp"
#include "results/console.hpp"
#include "results/metadata.hpp"
#include "core/device_info.hpp"
#include "core/energy.hpp"

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <unistd.h>

namespace miniapp {

int cmd_info(const MpiEnv& mpi) {
  // info starts no MPI (it must answer at once); under a launcher the rank count is its word.
  const int ranks = std::max(mpi.size(), MpiEnv::launcher_ranks());
  if (mpi.rank() != 0)
    return kOk;
  std::cout << "miniapp " << version() << " (git " << git_revision() << ")\n"
            << "Kokkos version:          " << built_kokkos_version() << "\n"
            << "backends compiled in:    " << join(compiled_backends(), ", ") << "\n"
            << "default execution space: " << default_backend() << "\n";
  for (const auto& b : compiled_backends()) {
    const DeviceInfo d = device_info(b);
    std::cout << "  " << b << ": concurrency " << d.concurrency << ", device " << d.name << ", "
              << d.memory_bytes / (1024.0 * 1024 * 1024) << " GiB\n"
              << "    energy counter: " << energy_source(b).description() << "\n";
  }
  std::cout << "host BLAS:               " << kernels::host_blas_name() << "\n";
  if (const std::string w = blas_under_use(kernels::host_blas_name(), host_isa().offered);
      !w.empty())
    std::cout << "  warning: " << w << "\n";
  std::cout << "MPI library:             " << mpi.library() << "\n"
            << "MPI ranks:               " << ranks
            << (MpiEnv::launched_by_mpi() ? " (as the launcher says; info starts no MPI)" : "")
            << "\n"
            << "ranks x threads:         "
            << describe_parallelism(ranks, default_backend()).summary() << "\n"
            << "compiler:                " << compiler_description() << "\n"
            << "host:                    " << host_name() << "\n";
  return kOk;
}

namespace {
// One side of --tile RxC: digits only, 1 to kMaxTileSide.
bool tile_side(const std::string& text, int& out) {
  // Nine digits at most: the value cannot overflow before the range check.
  if (text.empty() || text.size() > 9 ||
      !std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return false;
  const long v = std::strtol(text.c_str(), nullptr, 10);
  if (v < 1 || v > config::limits::kMaxTileSide)
    return false;
  out = int(v);
  return true;
}
} // namespace

int cmd_describe(std::int64_t rows, std::int64_t cols, const std::string& tile,
                 const std::string& backend, const std::string& color) {
  using config::limits::kMaxDescribeElements;
  const auto x = tile.find('x');
  int tr = 0, tc = 0;
  if (x == std::string::npos || !tile_side(tile.substr(0, x), tr) ||
      !tile_side(tile.substr(x + 1), tc)) {
    std::cerr << "miniapp describe: --tile must look like RxC with R and C between 1 and "
              << config::limits::kMaxTileSide << " (e.g. 2x3), got '" << tile << "'\n";
    return kConfigError;
  }
  // Both sides checked alone first, so their product cannot wrap; the map holds 6 ints per
  // element and prints four lines per row, so it is bounded well below the host's memory.
  if (rows < 1 || cols < 1 || std::uint64_t(rows) > kMaxDescribeElements ||
      std::uint64_t(cols) > kMaxDescribeElements ||
      sat_mul(std::uint64_t(rows), std::uint64_t(cols)) > kMaxDescribeElements) {
    std::cerr << "miniapp describe: --rows and --cols must be positive with rows x cols at most "
              << kMaxDescribeElements << " elements, got " << rows << " x " << cols << "\n";
    return kConfigError;
  }
  try {
    const auto map = kernels::compute_index_map(rows, cols, tr, tc, resolve_backend(backend));
    const bool colour = color == "always" || (color == "auto" && isatty(STDOUT_FILENO));
    std::cout << rows << "x" << cols << " matrix in " << tr << "x" << tc << " tiles ("
              << (rows + tr - 1) / tr << " x " << (cols + tc - 1) / tc << " tiles), computed on "
              << resolve_backend(backend) << "\n\n";
    kernels::print_index_map(std::cout, map, colour);
  } catch (const UnknownBackend& e) {
    std::cerr << "miniapp describe: " << e.what() << "\n";
    return kConfigError;
  } catch (const std::exception& e) {
    std::cerr << "miniapp describe: " << e.what() << "\n";
    return kRuntimeError;
  }
  return kOk;
}

void add_info_command(CLI::App& app, std::vector<Command>& commands) {
  auto* info = app.add_subcommand(
      "info", "Kokkos version, backends, devices, energy counters, ranks x threads, MPI (without "
              "starting it)");

  commands.push_back({info, Needs::kokkos, [](const MpiEnv* mpi) { return cmd_info(*mpi); }});
}

void add_describe_command(CLI::App& app, std::vector<Command>& commands) {
  struct DescribeArgs {
    std::int64_t rows = 8, cols = 9;
    std::string tile = "2x3", backend = "auto", color = "auto";
  };
  auto args = std::make_shared<DescribeArgs>();
  auto* describe = app.add_subcommand(
      "describe", "Print each element's global, tile and local index (C++ AMP tiled_index)");
  // The text is checked before CLI11 converts it: converted, 10^20 read as 2^63 - 1, and the error
  // named a value the user never typed.
  const CLI::Validator side(
      [](std::string& text) -> std::string {
        const bool digits =
            !text.empty() && text.size() <= 7 &&
            std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
        if (digits && std::stoll(text) >= 1 &&
            std::uint64_t(std::stoll(text)) <= config::limits::kMaxDescribeElements)
          return "";
        return "must be a whole number from 1 to " +
               std::to_string(config::limits::kMaxDescribeElements) + ", got '" +
               for_terminal(text.substr(0, 64)) + (text.size() > 64 ? "...'" : "'");
      },
      "1.." + std::to_string(config::limits::kMaxDescribeElements));
  describe->add_option("--rows", args->rows, "Matrix rows")->check(side)->capture_default_str();
  describe->add_option("--cols", args->cols, "Matrix columns")->check(side)->capture_default_str();
  describe->add_option("--tile", args->tile, "Tile shape RxC")->capture_default_str();
  describe->add_option("--backend", args->backend, "Backend (auto = default)")
      ->capture_default_str();
  describe->add_option("--color", args->color, "auto, always or never")
      ->check(CLI::IsMember({"auto", "always", "never"}))
      ->capture_default_str();

  commands.push_back({describe, Needs::kokkos, [args](const MpiEnv*) {
                        return cmd_describe(args->rows, args->cols, args->tile, args->backend,
                                            args->color);
                      }});
}

} // namespace miniapp
