#include "config/schema.hpp"

#include "config/config.hpp"
#include "config/limits.hpp"
#include "core/backend_names.hpp"
#include "core/case_fields.hpp"
#include "kernels/families.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <stdexcept>

namespace miniapp::config {

namespace {

using json = nlohmann::json;

json one_of_words(const std::vector<std::string>& words) {
  return {{"type", "string"}, {"enum", words}};
}

// A finite number (YAML's .inf is refused; no schema can refuse .nan).
json finite_number() {
  const double max = std::numeric_limits<double>::max();
  return {{"type", "number"}, {"minimum", -max}, {"maximum", max}};
}

json integer(std::int64_t min, std::int64_t max) {
  return {{"type", "integer"}, {"minimum", min}, {"maximum", max}};
}

json with_auto(const json& value) {
  return {{"anyOf", {value, {{"const", "auto"}}}}};
}

// A sweep key holds one value or a non-empty list of them (docs/config.md, "Sweeps").
json one_or_list(const json& value) {
  return {{"anyOf", {value, {{"type", "array"}, {"minItems", 1}, {"items", value}}}}};
}

void add_unique(std::vector<std::string>& list, const std::string& word) {
  if (std::find(list.begin(), list.end(), word) == list.end())
    list.push_back(word);
}

const CaseField& case_field(const std::string& name) {
  for (const auto& f : case_fields())
    if (name == f.name)
      return f;
  throw std::logic_error("schema: '" + name + "' is not in the case-field table");
}

const char* json_type(FieldType t) {
  switch (t) {
  case FieldType::integer:
    return "integer";
  case FieldType::number:
    return "number";
  case FieldType::boolean:
    return "boolean";
  default:
    return "string";
  }
}

std::vector<std::string> precision_names() {
  return case_field("precision").words(); // the top-level default takes the case key's words
}

// Every tile shape any backend kind compiles, for each precision and tile the variant takes (the
// plan checks a shape against the case's own; `miniapp list parameters` shows which is which).
std::vector<std::string> all_shape_names() {
  std::vector<std::string> out;
  for (const auto& f : families())
    for (const auto& v : f.variants)
      if (v.shapes)
        for (bool gpu : {false, true})
          for (Precision p : kPrecisions)
            for (int tile : v.tile_values.empty() ? std::vector<int>{v.tile} : v.tile_values)
              for (const auto& name : v.shapes(gpu, p, tile))
                add_unique(out, name);
  return out;
}

// One value of a sweep key as any case may write it (its row of the case-field table); the
// family rules narrow variant and tile. Variant and shape take the names of the family table.
json sweep_value(const std::string& key) {
  const CaseField& f = case_field(key);
  json v = {{"type", json_type(f.type)}};
  if (f.param == Param::shape) {
    std::vector<std::string> names = all_shape_names();
    names.push_back("auto");
    return one_of_words(names);
  }
  if (key == "variant") {
    std::vector<std::string> names;
    for (const auto& fam : families())
      for (const auto& x : fam.variants)
        add_unique(names, x.name);
    return one_of_words(names);
  }
  if (f.words)
    return one_of_words(f.words());
  if (f.type == FieldType::integer) {
    if (f.max == 0) // bounded below only, and by the 64-bit integers the loader reads (a seed
      v = integer(f.min, std::numeric_limits<std::int64_t>::max()); // of 2^64 was valid here)
    else
      v = integer(f.min, f.max);
  }
  if (f.type == FieldType::number)
    return finite_number();
  return f.takes_auto ? with_auto(v) : v;
}

// "flat (reads k), tiled (reads k, tile, team_size)": what each variant of f reads.
std::string variants_described(const Family& f) {
  std::string out;
  for (const auto& v : f.variants) {
    std::string reads;
    for (const auto& field : case_fields())
      if (field.param != Param{} && v.reads(field.param))
        reads += (reads.empty() ? "" : ", ") + std::string(field.name);
    out += (out.empty() ? "" : "; ") + v.name + " (reads " +
           (reads.empty() ? "no parameter" : reads) + ")";
  }
  return f.name + " variants: " + out;
}

// True for a case that runs variant v of its family: v named, v in the list, or no variant given
// (every variant runs).
json runs_variant(const Variant& v) {
  const json named = {
      {"anyOf", {{{"const", v.name}}, {{"type", "array"}, {"contains", {{"const", v.name}}}}}}};
  return {
      {"anyOf", {{{"not", {{"required", {"variant"}}}}}, {{"properties", {{"variant", named}}}}}}};
}

// What a case of family f may hold beyond the generic rules: its variants, no parameter none of
// them reads where the loader refuses one (kRefusedWhereUnread), and each variant's tiles.
json family_rule(const Family& f) {
  json then = {{"properties", {{"variant", one_or_list(one_of_words(f.variant_names()))}}}};
  then["properties"]["variant"]["description"] = variants_described(f);
  for (const auto& field : case_fields())
    if (refused_where_unread(field) && !f.any_variant_reads(field.param)) {
      then["properties"][field.name] = false;
      then["properties"]["zip"]["properties"][field.name] = false;
    }
  json per_variant = json::array();
  for (const auto& v : f.variants) {
    if (!v.reads(Param::tile) || (v.tile_max == 0 && v.tile_values.empty()))
      continue;
    json tile = v.tile_values.empty() ? integer(v.tile_min, v.tile_max)
                                      : json{{"type", "integer"}, {"enum", v.tile_values}};
    tile = with_auto(tile);
    tile["description"] = f.name + " " + v.name + " needs " + v.tile_rule;
    json rule = {{"if", runs_variant(v)}, {"then", {{"properties", json::object()}}}};
    rule["then"]["properties"]["tile"] = one_or_list(tile);
    rule["then"]["properties"]["zip"]["properties"]["tile"] = {{"type", "array"}, {"items", tile}};
    per_variant.push_back(rule);
  }
  if (!per_variant.empty())
    then["allOf"] = per_variant;
  return {{"if", {{"properties", {{"family", {{"const", f.name}}}}}, {"required", {"family"}}}},
          {"then", then}};
}

json case_schema() {
  json props = json::object();
  json zipped = json::object();
  for (const auto& key : sweep_keys()) {
    props[key] = one_or_list(sweep_value(key));
    zipped[key] = {{"type", "array"}, {"minItems", 1}, {"items", sweep_value(key)}};
  }
  props["family"] = one_of_words(family_names());
  props["init"] = one_of_words(init_kinds());
  const json matrix = {{"type", "array"},
                       {"items", {{"type", "array"}, {"items", finite_number()}}},
                       {"description", "explicit input: a list of rows, each a list of numbers"}};
  props["a"] = props["b"] = matrix;
  props["print"] = {{"type", "boolean"}};
  props["zip"] = {{"type", "object"},
                  {"minProperties", 1},
                  {"additionalProperties", false},
                  {"properties", zipped},
                  {"description", "sweep keys whose lists are paired element by element"}};
  for (const auto& key : case_keys())
    if (!props.contains(key))
      throw std::logic_error("schema: no rule for the case key '" + key + "'");
  json rules = json::array();
  for (const auto& f : families())
    rules.push_back(family_rule(f));
  for (const auto& key : sweep_keys()) // a key in the zip is not in the case too
    rules.push_back(
        {{"if", {{"required", {"zip"}}, {"properties", {{"zip", {{"required", {key}}}}}}}},
         {"then", {{"not", {{"required", {key}}}}}}});
  return {{"type", "object"},
          {"additionalProperties", false},
          {"required", {"family"}},
          {"properties", props},
          // n, in the case or in its zip
          {"anyOf",
           {{{"required", {"n"}}},
            {{"required", {"zip"}}, {"properties", {{"zip", {{"required", {"n"}}}}}}}}},
          {"allOf", rules}};
}

json map_of(const json& properties) {
  return {{"type", "object"}, {"additionalProperties", false}, {"properties", properties}};
}

json top_level_value(const std::string& key) {
  const json text = {{"type", "string"},
                     {"minLength", 1},
                     {"maxLength", limits::kMaxStringBytes},
                     {"pattern", "^[^\\u0000]*$"}}; // no NUL: it would cut a name or path short
  if (key == "name") {
    json name = text;
    name["pattern"] = "^[A-Za-z0-9_.-]+$";
    name["description"] = "names the results directory: letters, digits, '_', '.' and '-'";
    return name;
  }
  if (key == "description")
    return text;
  if (key == "backend") {
    std::vector<std::string> names = {"auto"};
    for (const auto& b : known_backends())
      names.push_back(b);
    return one_of_words(names);
  }
  if (key == "precision")
    return one_of_words(precision_names());
  if (key == "warmup")
    return integer(0, limits::kMaxRepetitions);
  if (key == "repetitions")
    return integer(1, limits::kMaxRepetitions);
  if (key == "pinned" || key == "energy" || key == "reuse_ceilings")
    return {{"type", "boolean"}};
  if (key == "validation")
    return map_of({{"enabled", {{"type", "boolean"}}},
                   {"rtol", {{"type", "number"}, {"minimum", 0}, {"exclusiveMaximum", 1}}}});
  if (key == "output")
    return map_of({{"directory", text},
                   {"formats", one_or_list(one_of_words(output_formats()))},
                   {"print", {{"type", "boolean"}}}});
  if (key == "mpi") {
    json grid = {{"type", "array"},
                 {"minItems", 2},
                 {"maxItems", 2},
                 {"items", integer(1, limits::kMaxGridSide)},
                 {"description", "the process grid [P, Q]"}};
    return map_of({{"grid", grid},
                   {"panel", integer(1, limits::kMaxGridSide)},
                   {"transport", one_of_words(transports())}});
  }
  if (key == "cases")
    return {{"type", "array"}, {"minItems", 1}, {"items", case_schema()}};
  throw std::logic_error("schema: no rule for the top-level key '" + key + "'");
}

} // namespace

json line_schema(bool tabs) {
  // "not a control byte anywhere" rather than an anchored pattern: '$' of Python's re (which
  // python3-jsonschema uses) also matches before a final newline.
  const char* control = tabs ? "[\\x00-\\x08\\x0a-\\x1f\\x7f]" : "[\\x00-\\x1f\\x7f]";
  return {{"type", "string"},
          {"minLength", 1},
          {"maxLength", limits::kMaxStringBytes},
          {"not", {{"pattern", control}}}};
}

json config_schema() {
  json props = json::object();
  for (const auto& key : top_level_keys())
    props[key] = top_level_value(key);
  return {{"$schema", "http://json-schema.org/draft-07/schema#"},
          {"title", "miniapp experiment config"},
          {"description", "An experiment config of miniapp (docs/config.md); generated by "
                          "`miniapp schema config`."},
          {"type", "object"},
          {"additionalProperties", false},
          {"required", {"name", "cases"}},
          {"properties", props}};
}

} // namespace miniapp::config
