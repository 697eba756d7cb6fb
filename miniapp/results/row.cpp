// One results row read back: every key through the results table (results/result_fields.hpp),
// typed, and the members compare uses.
#include "results/row.hpp"
#include "results/result_fields.hpp"

#include <string>
#include <unordered_map>

namespace miniapp {
namespace compare {

namespace {

// What the loader knows of a key of a results row: its column's type (unknown keys are skipped)
// and the variant parameter it is, if any.
struct KnownKey {
  const ResultField* column = nullptr;
  Param param{};
};
const std::unordered_map<std::string, KnownKey>& known_keys() {
  static const std::unordered_map<std::string, KnownKey> keys = [] {
    std::unordered_map<std::string, KnownKey> k;
    for (const auto& f : result_fields())
      k[f.name].column = &f;
    for (const auto& f : case_fields())
      k[f.name].param = f.param;
    return k;
  }();
  return keys;
}

} // namespace

// Every column through the results table, so schema 1's floats ("m": 256.0), CSV text and
// schema 2's typed values and nulls all read alike; then the members compare uses.
Row row_from(const nlohmann::json& o) {
  Row r;
  // Only the values the file has, in one pass over the row's own keys: an absent column reads as
  // null through field_of, so a row costs what its file holds, not the 84 columns of the table (a
  // hostile results.csv of 7588 two-cell rows took 1.6 s and 380 MB to compare with itself when
  // every row held every column).
  r.fields = nlohmann::json::object();
  const auto& keys = known_keys();
  for (auto it = o.begin(); it != o.end(); ++it) {
    const auto known = keys.find(it.key());
    if (known == keys.end())
      continue;
    nlohmann::json value =
        known->second.column ? typed_value(known->second.column->type, *it) : nlohmann::json();
    if (!value.is_null())
      r.fields[it.key()] = std::move(value);
    else if (known->second.param != Param{})
      // A parameter present but empty is one the case's variant does not use (schema 2); an
      // absent column says nothing.
      r.unused_params |= unsigned(known->second.param);
  }
  r.energy_columns = o.find("power_w") != o.end() || o.find("energy_note") != o.end();
  // Null (absent, empty, or not of the column's type) reads as an empty or zero member.
  const auto text = [&](const char* k) { return r.text(k); };
  const auto integer = [&](const char* k) { return r.integer(k); };
  const auto number = [&](const char* k) { return r.number(k); };
  const auto list = [&](const char* k) {
    const auto it = r.fields.find(k);
    return it == r.fields.end() || it->is_null() ? std::vector<double>()
                                                 : it->get<std::vector<double>>();
  };
  r.case_id = text("case_id");
  r.family = text("family");
  r.variant = text("variant");
  r.precision = text("precision");
  r.warmup = integer("warmup");
  r.repetitions = integer("repetitions");
  r.status = text("status");
  r.valid = text("valid");
  r.time_min = number("time_min_s");
  r.time_median = number("time_median_s");
  r.time_max = number("time_max_s");
  r.total_median = number("total_median_s");
  r.flops = number("flops");
  r.bytes = number("bytes");
  r.gflops = number("gflops");
  r.gbs = number("gbs");
  r.ceiling = text("ceiling");
  r.ceiling_value = number("ceiling_value");
  r.ceiling_unit = text("ceiling_unit");
  r.ranks = integer("ranks");
  r.compute_times = list("compute_times_s");
  r.h2d_times = list("h2d_times_s");
  r.d2h_times = list("d2h_times_s");
  return r;
}

namespace {
// The field's value, or null where the row has none.
const nlohmann::json& field_of(const Row& r, std::string_view name) {
  static const nlohmann::json null;
  const auto it = r.fields.find(name);
  return it == r.fields.end() ? null : *it;
}
} // namespace

std::int64_t Row::integer(std::string_view name) const {
  const auto& v = field_of(*this, name);
  return v.is_number() ? v.get<std::int64_t>() : 0;
}
double Row::number(std::string_view name) const {
  const auto& v = field_of(*this, name);
  return v.is_number() ? v.get<double>() : 0.0;
}
bool Row::flag(std::string_view name) const {
  const auto& v = field_of(*this, name);
  return v.is_boolean() ? v.get<bool>() : false;
}
std::string Row::text(std::string_view name) const {
  const auto& v = field_of(*this, name);
  return v.is_string() ? v.get<std::string>() : "";
}

} // namespace compare
} // namespace miniapp
