#include "plan/sweep.hpp"

#include "config/limits.hpp"
#include "core/size_math.hpp"
#include "kernels/families.hpp"

#include <algorithm>

namespace miniapp {

using config::fail;
using config::Value;

namespace {

// Scalars of an explicit matrix, counted without reading them.
std::uint64_t explicit_values(const std::optional<config::Matrix>& m) {
  std::uint64_t count = 0;
  if (m)
    for (const auto& row : m->rows)
      count = sat_add(count, row.is_list ? row.values.size() : 1);
  return count;
}

} // namespace

std::vector<SweepDim> sweep_dims(const config::CaseSpec& spec) {
  std::vector<SweepDim> dims;
  bool zip_placed = false;
  const bool variant_given =
      spec.params.count("variant") ||
      std::find(spec.zip_keys.begin(), spec.zip_keys.end(), "variant") != spec.zip_keys.end();
  for (const auto& key : config::sweep_keys()) {
    const bool in_zip =
        std::find(spec.zip_keys.begin(), spec.zip_keys.end(), key) != spec.zip_keys.end();
    if (in_zip && !zip_placed) {
      SweepDim d;
      d.keys = spec.zip_keys;
      for (size_t i = 0; i < spec.zip_values[0].size(); ++i) {
        std::vector<Value> row;
        for (const auto& vals : spec.zip_values)
          row.push_back(vals[i]);
        d.rows.push_back(row);
      }
      dims.push_back(d);
      zip_placed = true;
    } else if (spec.params.count(key)) {
      SweepDim d;
      d.keys = {key};
      for (const auto& v : spec.params.at(key))
        d.rows.push_back({v});
      dims.push_back(d);
    } else if (key == "variant" && !variant_given) {
      // No variant: every variant of the family, as if listed in the config.
      SweepDim d;
      d.keys = {key};
      for (const auto& v : family(spec.family.as_string()).variant_names())
        d.rows.push_back({Value{v, v, spec.pos}});
      dims.push_back(d);
    }
  }
  return dims;
}

void check_expansion(const config::ExperimentConfig& cfg,
                     const std::vector<std::vector<SweepDim>>& all) {
  using config::limits::kMaxCases;
  using config::limits::kMaxExpandedNodes;
  std::uint64_t total = 0;
  for (size_t i = 0; i < all.size(); ++i) {
    std::uint64_t cases = 1;
    for (const auto& d : all[i])
      cases = sat_mul(cases, d.rows.size());
    total = sat_add(total, cases);
    const auto& spec = cfg.cases[i];
    if (total > kMaxCases)
      fail(spec.pos,
           "the config expands to more than " + std::to_string(kMaxCases) + " cases (cases[" +
               std::to_string(i) + "] alone to " +
               (cases == kTooLarge ? std::string("more than 2^64") : std::to_string(cases)) +
               ", the product of its lists); the limit is " + std::to_string(kMaxCases) +
               " (see docs/config.md)");
    const std::uint64_t values = sat_add(explicit_values(spec.a), explicit_values(spec.b));
    if (sat_mul(values, cases) > kMaxExpandedNodes)
      fail(spec.pos, "cases[" + std::to_string(i) + "] repeats its explicit matrices (" +
                         std::to_string(values) + " values) over " + std::to_string(cases) +
                         " cases: more than " + std::to_string(kMaxExpandedNodes) +
                         " values in all, the limit (see docs/config.md)");
  }
}

} // namespace miniapp
