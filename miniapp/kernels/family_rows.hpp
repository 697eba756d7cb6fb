#pragma once
// The rows of the family table (families.cpp) name their fields: each setter has the name of the
// field it sets (families.hpp says what the field means), and a field a row does not name keeps
// the default families.hpp gives it (core/row_builder.hpp).
#include "kernels/families.hpp"
#include "core/row_builder.hpp"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace miniapp {

// What miniapp-bench registers for a variant: BenchRow({f32}).tiles({16, 32}).
class BenchRow : public RowBuilder<BenchRow, BenchSpec> {
public:
  explicit BenchRow(std::vector<Precision> precisions) {
    built_.precisions = std::move(precisions);
  }
  BenchRow& tiles(std::vector<int> t) { return assign(&BenchSpec::tiles, std::move(t)); }
  BenchRow& max_n(std::int64_t n) { return assign(&BenchSpec::max_n, n); }
  BenchRow& validate_max_n(std::int64_t n) { return assign(&BenchSpec::validate_max_n, n); }
};

class VariantRow : public RowBuilder<VariantRow, Variant> {
public:
  explicit VariantRow(std::string name) { built_.name = std::move(name); }
  VariantRow& params(unsigned bits) { return assign(&Variant::params, bits); }
  VariantRow& tile(int t) { return assign(&Variant::tile, t); }
  VariantRow& tile_min(int t) { return assign(&Variant::tile_min, t); }
  VariantRow& tile_max(int t) { return assign(&Variant::tile_max, t); }
  VariantRow& tile_values(std::vector<int> t) {
    return assign(&Variant::tile_values, std::move(t));
  }
  VariantRow& tile_rule(std::string r) { return assign(&Variant::tile_rule, std::move(r)); }
  VariantRow& tile_search_host(std::vector<int> t) {
    return assign(&Variant::tile_search_host, std::move(t));
  }
  VariantRow& tile_search_gpu(std::vector<int> t) {
    return assign(&Variant::tile_search_gpu, std::move(t));
  }
  VariantRow& tile_measured_on_gpu() { return assign(&Variant::tile_measured_on_gpu, true); }
  VariantRow& bench(BenchSpec b) { return assign(&Variant::bench, std::move(b)); }
  VariantRow& shapes(decltype(Variant::shapes) s) { return assign(&Variant::shapes, s); }
  VariantRow& team_barriers(decltype(Variant::team_barriers) b) {
    return assign(&Variant::team_barriers, b);
  }
};

class FamilyRow : public RowBuilder<FamilyRow, Family> {
public:
  explicit FamilyRow(std::string name) { built_.name = std::move(name); }
  FamilyRow& variants(std::vector<Variant> v) { return assign(&Family::variants, std::move(v)); }
  FamilyRow& tile_cols(int t) { return assign(&Family::tile_cols, t); }
  FamilyRow& alpha(double a) { return assign(&Family::alpha, a); }
  FamilyRow& beta(double b) { return assign(&Family::beta, b); }
  FamilyRow& inputs(int n) { return assign(&Family::inputs, n); }
  FamilyRow& inputs_are_values(bool on) { return assign(&Family::inputs_are_values, on); }
  FamilyRow& distribution(Distribution d) { return assign(&Family::distribution, d); }
  FamilyRow& blocks_in_tiles(bool on) { return assign(&Family::blocks_in_tiles, on); }
  FamilyRow& rate(Rate r) { return assign(&Family::rate, r); }
  FamilyRow& ceiling(Ceiling c) { return assign(&Family::ceiling, c); }
  FamilyRow& team_search(bool on) { return assign(&Family::team_search, on); }
  FamilyRow& bench_compute_sizes(bool on) { return assign(&Family::bench_compute_sizes, on); }
  FamilyRow& elements(decltype(Family::elements) e) { return assign(&Family::elements, e); }
  FamilyRow& host_values(decltype(Family::host_values) v) {
    return assign(&Family::host_values, v);
  }
  FamilyRow& workspace(decltype(Family::workspace) w) { return assign(&Family::workspace, w); }
  FamilyRow& result_bounds(decltype(Family::result_bounds) r) {
    return assign(&Family::result_bounds, r);
  }
  FamilyRow& tile_sweep_hint(std::string h) {
    return assign(&Family::tile_sweep_hint, std::move(h));
  }
  FamilyRow& make(KernelFactory m) { return assign(&Family::make, m); }
  FamilyRow& ceiling_variant(std::string v) {
    return assign(&Family::ceiling_variant, std::move(v));
  }
};

} // namespace miniapp
