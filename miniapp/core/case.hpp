#pragma once
// One fully expanded experiment case: what the plan hands to the runner.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace miniapp {

enum class Precision { int32, float32, float64 };
inline constexpr Precision kPrecisions[] = {Precision::int32, Precision::float32,
                                            Precision::float64};
const char* to_string(Precision p);
bool parse_precision(const std::string& s, Precision& out);

// Parameters that only some variants read. The plan records which ones a case's variant uses
// (from the family table); the results write the others as null, not as a made-up 0.
enum class Param : unsigned {
  k = 1u << 0,
  tile = 1u << 1,
  tile_cols = 1u << 2,
  team_size = 1u << 3,
  alpha = 1u << 4,
  beta = 1u << 5,
  in_place = 1u << 6,
  shape = 1u << 7,
};

struct Case {
  std::string family;  // matmul, axpby, tile_average, tile_index
  std::string variant; // family-specific
  Precision precision = Precision::float32;
  std::int64_t m = 0, n = 0, k = 0; // matmul: C(m x n) = A(m x k) B(k x n); others use m x n
  int tile = 0;      // tile width (matmul tiled/tiled_rb), sample size (tile_average); 0 = auto
  int tile_cols = 0; // tile_index only: tile is rows, tile_cols is columns
  int team_size = 0; // 0 = chosen per backend
  bool tile_auto = false, team_auto = false; // 'auto' in the config: search (run/autotune.hpp)
  // tiled_rb's tile shape by name (kernels/matmul_shapes.hpp): "" = the default of the list for
  // the backend kind, precision and tile; shape_auto: 'shape: auto', searched by the autotuner.
  std::string shape;
  bool shape_auto = false;
  std::string tuning; // what the autotuner chose, and whether it came from the cache
  double alpha = 1.0, beta = 1.0;
  bool in_place = false;
  // Integer parameters that only their row of the case-field table (core/case_fields.cpp), the
  // family table and their kernel name: by field name, as the plan set them (the variants that
  // do not read one have no entry); table_param gives the row's default where unset.
  std::map<std::string, std::int64_t> table_params;
  std::int64_t table_param(const std::string& name) const;
  bool pinned = false;         // pinned host staging buffers for the transfers
  std::string init = "random"; // random | iota | ones | explicit
  std::vector<std::vector<double>> a_values, b_values; // init: explicit
  std::uint64_t seed = 42;
  bool print = false;
  // Param bits of the parameters this variant reads, set by the plan from the family table; the
  // id writes k, alpha, beta and in_place only where they are read (~0u: unknown, all).
  unsigned params_used = ~0u;
  bool uses(Param p) const { return (params_used & unsigned(p)) != 0; }
  int index = 0;          // position in the plan
  std::string id() const; // "matmul/tiled/float32/m=..,n=..,k=../tile=16"
};

} // namespace miniapp
