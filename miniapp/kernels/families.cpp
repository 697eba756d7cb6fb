#include "kernels/families.hpp"

#include "kernels/family_cases.hpp"
#include "kernels/family_rows.hpp"
#include "kernels/matmul_shapes.hpp"
#include "kernels/transpose_case.hpp"
#include "core/size_math.hpp"
#include "core/backends.hpp"

#include <algorithm>
#include <cmath>
#include <initializer_list>

namespace miniapp {

namespace {

constexpr unsigned bits(std::initializer_list<Param> ps) {
  unsigned b = 0;
  for (Param p : ps)
    b |= unsigned(p);
  return b;
}

constexpr Precision f32 = Precision::float32, f64 = Precision::float64;

// Device elements: the inputs and the output, each m x n (or the matmul shapes).
std::uint64_t matmul_elements(const Case& c) {
  const std::uint64_t m = size_of(c.m), n = size_of(c.n), k = size_of(c.k);
  return sat_add(sat_add(sat_mul(m, k), sat_mul(k, n)), sat_mul(m, n));
}
std::uint64_t axpby_elements(const Case& c) {
  return sat_mul(c.in_place ? 2 : 3, sat_mul(size_of(c.m), size_of(c.n)));
}
std::uint64_t two_matrices(const Case& c) { // the input and an output no larger than it
  return sat_mul(2, sat_mul(size_of(c.m), size_of(c.n)));
}
std::uint64_t tile_index_elements(const Case& c) { // six int32 index maps of m x n
  return sat_mul(6, sat_mul(size_of(c.m), size_of(c.n)));
}

// Host float64 values beside the data (Family::host_values), from each case's validate(): peak
// resident memory of `miniapp run` on OpenMP, float32 axpby 2000 -> 4000, grew 42.9 bytes an
// element for 12 of data and 32 of these (a kept copy of A, B, the reference and the bounds).
std::uint64_t matmul_host_values(const Case& c, bool validate) { // A, B, |A|, |B|; ref, bound
  const std::uint64_t m = size_of(c.m), n = size_of(c.n), k = size_of(c.k);
  return validate
             ? sat_add(sat_mul(2, sat_add(sat_mul(m, k), sat_mul(k, n))), sat_mul(2, sat_mul(m, n)))
             : 0;
}
std::uint64_t axpby_host_values(const Case& c, bool validate) { // A kept; B, ref, bound
  return sat_mul(validate ? 4 : 1, sat_mul(size_of(c.m), size_of(c.n)));
}
std::uint64_t reference_and_bound(const Case& c, bool validate) { // transpose: one each of m x n
  return validate ? sat_mul(2, sat_mul(size_of(c.m), size_of(c.n))) : 0;
}
std::uint64_t tile_average_host_values(const Case& c, bool validate) { // one each a tile
  const std::uint64_t s = size_of(std::max<std::int64_t>(c.tile, 1));
  return validate ? sat_mul(2, sat_mul((size_of(c.m) + s - 1) / s, (size_of(c.n) + s - 1) / s)) : 0;
}
std::uint64_t no_host_values(const Case&, bool) { // tile_index checks its maps in place
  return 0;
}
// tiled_rb's operands packed (host: K in chunks of 256, rows in blocks of up to 12, columns of up
// to 32) or zero-padded (GPU: rows and columns to tiles of up to 128, K to 16), kept between
// products: (k + 256)(m + n + 256) holds both. Split-K's partial sums (GPU, where the tiles do not
// fill the device) are left out: they are a few times C at sizes far below any memory's limit.
std::uint64_t matmul_workspace(const Case& c) {
  if (c.variant != "tiled_rb")
    return 0;
  return sat_mul(sat_add(size_of(c.k), 256), sat_add(sat_add(size_of(c.m), size_of(c.n)), 256));
}

// The classic tiled product: a team per TW x TW output tile, two barriers per step of TW along k.
std::uint64_t matmul_tiled_barriers(const Case& c) {
  const std::uint64_t tw = std::uint64_t(std::max(1, c.tile));
  const auto steps = [tw](std::int64_t x) { return (size_of(x) + tw - 1) / tw; };
  return sat_mul(2, sat_mul(sat_mul(steps(c.m), steps(c.n)), steps(c.k)));
}

std::vector<std::string> tiled_rb_shapes(bool gpu, Precision p, int tile) {
  return kernels::tiled_rb_shape_names(gpu, p != Precision::int32, p == Precision::float64 ? 8 : 4,
                                       tile);
}

std::vector<ResultBound> matmul_bounds(const Case& c, double a, double b) {
  return {{"a sum of k products of the inputs", double(c.k) * a * b, ""}};
}
std::vector<ResultBound> axpby_bounds(const Case& c, double a, double b) {
  return {{"alpha", std::fabs(c.alpha), "alpha"},
          {"beta", std::fabs(c.beta), "beta"},
          {"alpha * A + beta * B", std::fabs(c.alpha) * a + std::fabs(c.beta) * b, "alpha"}};
}
std::vector<ResultBound> tile_average_bounds(const Case& c, double a, double) {
  return {{"a sum over one S x S tile", double(c.tile) * double(c.tile) * a, ""}};
}
std::vector<ResultBound> no_bounds(const Case&, double, double) {
  return {};
}

// The table: one row per family, each field named (kernels/family_rows.hpp; families.hpp says
// what each means). Every row names its inputs, distribution, rate, ceiling, device elements,
// result bounds and factory; the other fields where they differ from families.hpp's defaults.
constexpr unsigned kTiledMatmul = bits({Param::k, Param::tile, Param::team_size});
constexpr unsigned kTiled = bits({Param::tile, Param::team_size});
constexpr unsigned kAxpby = bits({Param::alpha, Param::beta, Param::in_place});
// The float64 host reference of a product costs seconds to minutes beyond 2048.
constexpr std::int64_t kCheckedProduct = 2048;

// clang-format off
std::vector<Family> make_table() {
  return {
      FamilyRow("matmul")
          .variants({
              VariantRow("flat").params(bits({Param::k}))
                  .bench(BenchRow({f32}).tiles({0}).max_n(4096).validate_max_n(kCheckedProduct)),
              VariantRow("tiled").params(kTiledMatmul)
                  .tile(16).tile_min(2).tile_max(32).tile_rule("a tile width between 2 and 32")
                  .tile_search_host({4, 8, 16, 32}).tile_search_gpu({8, 16, 32})
                  .bench(BenchRow({f32}).tiles({16, 32}).validate_max_n(kCheckedProduct))
                  .team_barriers(matmul_tiled_barriers),
              VariantRow("tiled_rb").params(kTiledMatmul | bits({Param::shape}))
                  .tile(128).tile_values({64, 128}).tile_rule("tile 64 or 128 (or auto)")
                  .tile_search_host({64, 128}).tile_search_gpu({64, 128})
                  .bench(BenchRow({f32, f64}).tiles({128}).validate_max_n(kCheckedProduct))
                  .shapes(tiled_rb_shapes),
              VariantRow("vendor").params(bits({Param::k}))
                  .bench(BenchRow({f32, f64}).tiles({0}).validate_max_n(kCheckedProduct)),
          })
          .inputs(2)
          .distribution(Distribution::summa)
          .rate(Rate::gflops)
          .ceiling(Ceiling::vendor_gemm).ceiling_variant("vendor")
          .team_search(false)
          .bench_compute_sizes(true)
          .elements(matmul_elements)
          .host_values(matmul_host_values)
          .workspace(matmul_workspace)
          .result_bounds(matmul_bounds)
          .tile_sweep_hint("this case sweeps variants that read tile differently (tiled: a width "
                           "2 to 32, tiled_rb: 64 or 128): split it into one case per variant")
          .make(kernels::make_matmul_case),
      FamilyRow("axpby")
          .variants({
              VariantRow("flat").params(kAxpby).bench(BenchRow({f32})),
              VariantRow("mdrange").params(kAxpby).bench(BenchRow({f32})),
              VariantRow("team").params(kAxpby | bits({Param::team_size})).bench(BenchRow({f32})),
          })
          .alpha(2.0).beta(-1.0)
          .inputs(2)
          .distribution(Distribution::local_blocks)
          .rate(Rate::gbs)
          .ceiling(Ceiling::copy_bandwidth)
          .elements(axpby_elements)
          .host_values(axpby_host_values)
          .result_bounds(axpby_bounds)
          .make(kernels::make_axpby_case),
      FamilyRow("tile_average")
          .variants({
              VariantRow("leader").params(kTiled).tile(16).bench(BenchRow({f32}).tiles({16, 32})),
              VariantRow("team_reduce").params(kTiled).tile(16)
                  .bench(BenchRow({f32}).tiles({16, 32})),
          })
          .inputs(1)
          .distribution(Distribution::local_blocks).blocks_in_tiles(true)
          .rate(Rate::gbs)
          .ceiling(Ceiling::copy_bandwidth)
          .elements(two_matrices)
          .host_values(tile_average_host_values)
          .result_bounds(tile_average_bounds)
          .make(kernels::make_tile_average_case),
      FamilyRow("tile_index")
          .variants({
              VariantRow("team").params(kTiled | bits({Param::tile_cols})).tile(2), // no bench
          })
          .tile_cols(3)
          .inputs(1).inputs_are_values(false)
          .distribution(Distribution::single_rank)
          .rate(Rate::gbs)
          .ceiling(Ceiling::copy_bandwidth)
          .elements(tile_index_elements)
          .host_values(no_host_values)
          .result_bounds(no_bounds)
          .make(kernels::make_tile_index_case),
      FamilyRow("transpose")
          .variants({
              VariantRow("flat").bench(BenchRow({f32, f64})),
              VariantRow("tiled").params(kTiled | unsigned(param_named("pad")))
                  .tile(32).tile_min(kernels::kTransposeTileMin)
                  .tile_max(kernels::kTransposeTileMax)
                  .tile_rule("a tile width between 2 and 64 (or auto)")
                  // Left out, GPUs measure 32 against 64 (H200 at 8192: 85.3% / 92.1% of copy,
                  // H100 91.7% / 95.2%; docs/kernels.md, transpose)
                  .tile_search_host({32, 64}).tile_search_gpu({32, 64}).tile_measured_on_gpu()
                  .bench(BenchRow({f32, f64}).tiles({32})),
          })
          .inputs(1)
          .distribution(Distribution::single_rank)
          .rate(Rate::gbs)
          .ceiling(Ceiling::copy_bandwidth)
          .elements(two_matrices)
          .host_values(reference_and_bound)
          .result_bounds(no_bounds)
          .make(kernels::make_transpose_case),
  };
}
// clang-format on

} // namespace

bool Variant::takes_tile(int t) const {
  if (!tile_values.empty())
    return std::find(tile_values.begin(), tile_values.end(), t) != tile_values.end();
  return tile_max == 0 || (t >= tile_min && t <= tile_max);
}

bool Family::any_variant_reads(Param p) const {
  return std::any_of(variants.begin(), variants.end(),
                     [&](const Variant& v) { return v.reads(p); });
}

const Variant* Family::find_variant(const std::string& v) const {
  for (const auto& x : variants)
    if (x.name == v)
      return &x;
  return nullptr;
}

const Variant& Family::variant(const std::string& v) const {
  if (const Variant* x = find_variant(v))
    return *x;
  throw UnknownFamily("unknown " + name + " variant '" + v + "'");
}

std::vector<std::string> Family::variant_names() const {
  std::vector<std::string> out;
  for (const auto& v : variants)
    out.push_back(v.name);
  return out;
}

const std::vector<Family>& families() {
  static const std::vector<Family> table = make_table();
  return table;
}

std::vector<std::string> family_names() {
  return family_names_where([](const Family&) { return true; });
}

std::vector<std::string> family_names_where(bool (*matches)(const Family&)) {
  std::vector<std::string> out;
  for (const auto& f : families())
    if (matches(f))
      out.push_back(f.name);
  return out;
}

const Family* find_family(const std::string& name) {
  for (const auto& f : families())
    if (f.name == name)
      return &f;
  return nullptr;
}

const Family& family(const std::string& name) {
  if (const Family* f = find_family(name))
    return *f;
  std::string known;
  for (const auto& f : families())
    known += (known.empty() ? "" : ", ") + f.name;
  throw UnknownFamily("unknown kernel family '" + name + "' (known: " + known + ")");
}

Case transfer_ceiling_case(std::int64_t elements) {
  Case c; // R = A in place: the upload moves exactly the two inputs
  c.family = "axpby";
  c.variant = "flat";
  c.m = 1;
  c.n = elements;
  c.pinned = true;
  c.in_place = true;
  resolve_parameters(c);
  return c;
}

bool rate_is_gflops(const std::string& family_name) {
  const Family* f = find_family(family_name);
  return f && f->rate == Rate::gflops;
}

unsigned params_read(const std::string& family_name, const std::string& variant) {
  const Family* f = find_family(family_name);
  const Variant* v = f ? f->find_variant(variant) : nullptr;
  return v ? v->params : 0;
}

void tile_left_out(Case& c, bool gpu) {
  if (gpu && family(c.family).variant(c.variant).tile_measured_on_gpu) {
    c.tile = 0;
    c.tile_auto = true;
  }
}

void resolve_parameters(Case& c) {
  const Family& f = family(c.family);
  const Variant& v = f.variant(c.variant);
  c.params_used = v.params;
  // 'auto' is searched only where the search has candidates; elsewhere the default applies.
  c.tile_auto = c.tile_auto && v.reads(Param::tile) && !v.tile_search_host.empty();
  c.team_auto = c.team_auto && v.reads(Param::team_size);
  c.shape_auto = c.shape_auto && v.reads(Param::shape);
  // Parameters the variant does not read are cleared, so cases that differ only in them are one.
  if (!v.reads(Param::k))
    c.k = 0;
  if (!v.reads(Param::tile))
    c.tile = 0;
  else if (!c.tile && !c.tile_auto)
    c.tile = v.tile;
  if (!v.reads(Param::tile_cols))
    c.tile_cols = 0;
  else if (!c.tile_cols)
    c.tile_cols = f.tile_cols;
  if (!v.reads(Param::team_size))
    c.team_size = 0;
  if (!v.reads(Param::in_place))
    c.in_place = false;
  if (!v.reads(Param::shape))
    c.shape.clear();
  // Table parameters (core/case_fields.cpp): the row's default where the variant reads one the
  // case leaves unset; none where it does not.
  for (const auto& field : case_fields())
    if (field.in_table()) {
      if (!v.reads(field.param))
        c.table_params.erase(field.name);
      else if (!c.table_params.count(field.name))
        c.table_params[field.name] = field.default_value;
    }
}

bool refused_where_unread(const CaseField& field) {
  return (unsigned(field.param) & kRefusedWhereUnread) || field.in_table();
}

std::vector<std::string> shape_names(const Case& c, const std::string& backend) {
  const Variant& v = family(c.family).variant(c.variant);
  if (!v.reads(Param::shape) || !v.shapes)
    return {};
  return v.shapes(is_gpu_backend(backend), c.precision, c.tile > 0 ? c.tile : v.tile);
}

std::string shape_that_runs(const Case& c, const std::string& backend) {
  if (!c.shape.empty())
    return c.shape;
  const auto names = shape_names(c, backend);
  return names.empty() ? "" : names.front();
}

std::uint64_t case_bytes(const Case& c) {
  const std::uint64_t e = c.precision == Precision::float64 ? 8 : 4;
  return sat_mul(family(c.family).elements(c), e);
}

std::uint64_t case_host_bytes(const Case& c, bool validate, bool gpu) {
  const Family& f = family(c.family);
  const std::uint64_t e = c.precision == Precision::float64 ? 8 : 4;
  const std::uint64_t workspace = !gpu && f.workspace ? sat_mul(f.workspace(c), e) : 0;
  return sat_add(sat_add(case_bytes(c), sat_mul(f.host_values(c, validate), 8)), workspace);
}

std::unique_ptr<KernelCase> make_kernel_case(const Case& c, const std::string& backend,
                                             const Block& block) {
  const Family& f = family(c.family);
  const Variant& v = f.variant(c.variant);
  // The factories have no defaults of their own: the plan (resolve_parameters) settled them.
  if (v.reads(Param::tile) && c.tile < 1)
    throw UnsupportedCase(c.family + " " + c.variant + " needs a tile (got " +
                          std::to_string(c.tile) + "; resolve_parameters sets the default)");
  if (v.reads(Param::tile_cols) && c.tile_cols < 1)
    throw UnsupportedCase(c.family + " " + c.variant + " needs tile_cols (got " +
                          std::to_string(c.tile_cols) + ")");
  return f.make(c, backend, block);
}

} // namespace miniapp
