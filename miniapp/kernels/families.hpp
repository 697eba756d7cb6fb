#pragma once
// What a kernel family IS, said once: its variants, the parameters each variant reads and their
// defaults (the only place defaults live), the accepted tile values, the device bytes of a case,
// how it spreads over MPI ranks, the rate it is judged by and its ceiling, the autotuner's
// candidates, the benchmarks miniapp-bench registers, and the factory of its KernelCase.
// Config checking, plan expansion, the grid, autotune, ceilings, miniapp-bench, `miniapp list`
// and compare ask this table; none of them names a family.
//
// Adding a family: its kernels and KernelCase in its own kernels/<family>*.{hpp,cpp}, its factory
// declared in kernels/family_cases.hpp, and ONE row in families.cpp (docs/kernels.md).
#include "kernels/kernel_case.hpp"
#include "core/case.hpp"
#include "core/case_fields.hpp"

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace miniapp {

// How a case spreads over the ranks of an MPI run.
enum class Distribution {
  local_blocks, // each rank runs the one-rank case on its block; no communication
  summa,        // SUMMA over the process grid (parallel/summa.hpp)
  single_rank,  // nothing to distribute: refused when the run has several ranks
};

enum class Rate { gflops, gbs }; // the rate a case is judged and compared by
enum class Ceiling { vendor_gemm, copy_bandwidth };

using KernelFactory = std::unique_ptr<KernelCase> (*)(const Case&, const std::string& backend,
                                                      const Block& block);

// What miniapp-bench registers for a variant: one benchmark per precision and tile, each named by
// its case id (Case::id(), as `miniapp run` names it).
struct BenchSpec {
  std::vector<Precision> precisions; // empty: not benchmarked
  std::vector<int> tiles = {0};      // 0: the variant's default tile
  std::int64_t max_n = 0;            // larger sizes are left out (0: none)
  std::int64_t validate_max_n = 0;   // larger sizes are timed unvalidated (0: all validated)
};

struct Variant {
  std::string name;
  unsigned params = 0; // Param bits this variant reads (Case::params_used)
  int tile = 0;        // the default tile (0: reads none, or found by 'tile: auto' only)
  // The tiles it takes beyond the generic 1..kMaxTileSide: a range, or a list of values; `rule`
  // says it for messages ("a tile width between 2 and 32").
  int tile_min = 0, tile_max = 0;
  std::vector<int> tile_values;
  std::string tile_rule;
  // 'tile: auto' searches these (empty: the tile defines the output, auto is not searched and the
  // default applies).
  std::vector<int> tile_search_host, tile_search_gpu;
  // Where the config leaves the tile out, GPU backends search tile_search_gpu as 'tile: auto'
  // does (measured on the device, cached per machine); host backends take `tile`.
  bool tile_measured_on_gpu = false;
  BenchSpec bench;
  // The tile shapes compiled for a backend kind (gpu or host), precision and tile, the default
  // first (variants reading Param::shape; nullptr for the others).
  std::vector<std::string> (*shapes)(bool gpu, Precision p, int tile) = nullptr;
  // The team barriers one launch passes, summed over its teams, where they and not the flops or
  // bytes can set a host's time (plan/estimate.cpp's barrier term; nullptr: not counted). The
  // case's tile is the one that runs (never 0).
  std::uint64_t (*team_barriers)(const Case&) = nullptr;
  bool reads(Param p) const { return (params & unsigned(p)) != 0; }
  // Whether the variant takes this tile (within the generic 1..kMaxTileSide the plan checked).
  bool takes_tile(int tile) const;
};

// The largest magnitude a case's kernel forms from inputs of magnitude a and b: what, how large,
// and the key an error points at ("" = the size).
struct ResultBound {
  std::string what;
  double value = 0;
  std::string key;
};

struct Family {
  std::string name;
  std::vector<Variant> variants;
  int tile_cols = 0;             // default tile_cols (variants reading Param::tile_cols)
  double alpha = 1, beta = 1;    // defaults (variants reading Param::alpha / beta)
  int inputs = 1;                // input matrices: a (m x n, or m x k with k) and b (2 inputs)
  bool inputs_are_values = true; // false: the inputs are not read (tile_index maps indices)
  Distribution distribution = Distribution::single_rank;
  bool blocks_in_tiles = false; // local blocks are cut in whole tiles (no tile on two ranks)
  Rate rate = Rate::gbs;
  Ceiling ceiling = Ceiling::copy_bandwidth;
  bool team_search = true; // 'team_size: auto' searches team sizes (else the tile decides: 0)
  bool bench_compute_sizes = false; // miniapp-bench's GEMM sizes instead of its stream sizes
  std::uint64_t (*elements)(const Case&) = nullptr; // device elements of a case (saturating)
  // float64 values a case holds on the host beside its data, at most at once (a kept copy of an
  // input, and with `validate` the reference and each element's bound): kernels/*_case.cpp.
  std::uint64_t (*host_values)(const Case&, bool validate) = nullptr;
  // Elements the kernel keeps in the backend's memory between launches beside the data (tiled_rb's
  // packed or padded operands, kernels/matmul_padded.hpp); nullptr: none.
  std::uint64_t (*workspace)(const Case&) = nullptr;
  std::vector<ResultBound> (*result_bounds)(const Case&, double a, double b) = nullptr;
  std::string tile_sweep_hint; // why one tile list cannot serve all variants (messages)
  KernelFactory make = nullptr;
  std::string ceiling_variant; // Ceiling::vendor_gemm: the variant whose run is the ceiling

  bool any_variant_reads(Param p) const;
  const Variant& variant(const std::string& name) const; // throws UnknownFamily
  const Variant* find_variant(const std::string& name) const;
  std::vector<std::string> variant_names() const;
};

// Parameters a case may not give when no variant of its family reads them (k on axpby is an
// error). The others are ignored where unread (a tile on matmul flat), so that one case may sweep
// variants that read them together with variants that do not.
constexpr unsigned kRefusedWhereUnread = unsigned(Param::k) | unsigned(Param::tile_cols) |
                                         unsigned(Param::shape) | unsigned(Param::in_place);
// Those, and every table parameter (core/case_fields.hpp: one that a single kernel reads).
bool refused_where_unread(const CaseField& field);

struct UnknownFamily : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

const std::vector<Family>& families();
std::vector<std::string> family_names();
// The names of the families a row of the table matches, in table order (for help and messages).
std::vector<std::string> family_names_where(bool (*matches)(const Family&));
const Family* find_family(const std::string& name); // nullptr when unknown
// Throws UnknownFamily: an unknown name never falls into another family's numbers.
const Family& family(const std::string& name);
// The case whose upload measures the transfer ceiling (pinned host-to-device bandwidth): two
// float32 inputs of `elements` each, staged through pinned host buffers.
Case transfer_ceiling_case(std::int64_t elements);
// Whether rows of the family are judged by GFLOP/s (its Rate); false, GB/s, for a name this build
// does not know (a results file of another version).
bool rate_is_gflops(const std::string& family_name);
// The Param bits the variant reads (Case::params_used); 0 where this build does not know it.
unsigned params_read(const std::string& family_name, const std::string& variant);

// Sets every parameter c's variant reads but c leaves at 0 to the table's default, clears the
// ones it does not read, and records which it reads (Case::params_used).
void resolve_parameters(Case& c);
// A resolved case whose config left its tile out: searched as 'tile: auto' where the variant's
// tile is measured on GPUs (Variant::tile_measured_on_gpu) and gpu is true; else unchanged.
void tile_left_out(Case& c, bool gpu);
// The shapes c may run at on the backend, the default first (for c's tile, or the variant's
// default tile where c's is 0); empty for variants that do not read Param::shape.
std::vector<std::string> shape_names(const Case& c, const std::string& backend);
// The shape that runs: c.shape, or the default of shape_names where c leaves it ""; "" for
// variants that do not read Param::shape.
std::string shape_that_runs(const Case& c, const std::string& backend);
// Device bytes of the case on one rank (saturating at kTooLarge, core/size_math.hpp).
std::uint64_t case_bytes(const Case& c);
// Host bytes of the case on one rank, at most at once: its data (on a GPU its host copies), the
// float64 values it holds beside them (Family::host_values) and, on a host backend, the kernel's
// workspace (Family::workspace); saturating at kTooLarge.
std::uint64_t case_host_bytes(const Case& c, bool validate, bool gpu);

} // namespace miniapp
