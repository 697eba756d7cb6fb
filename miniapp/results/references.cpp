#include "results/references.hpp"

#include "config/schema.hpp"
#include "config/yaml_strict.hpp"
#include "core/case.hpp"
#include "core/case_fields.hpp"
#include "kernels/families.hpp"

#include <algorithm>
#include <cstdio>
#include <fnmatch.h>
#include <stdexcept>

namespace miniapp::references {

using config::Source;

namespace {

const std::vector<std::string> kTopKeys = {"description", "references"};
const std::vector<std::string> kEntryKeys = {"case",           "backend", "device",       "rate",
                                             "pct_of_ceiling", "unit",    "tolerance_pct"};
// A rate's units, the bound of an expected figure (rate or percentage: above 0, at most this) and
// of tolerance_pct (at least 0, below this).
const std::vector<std::string> kUnits = {"GB/s", "GFLOP/s"};
constexpr double kMaxExpected = 1e12;
constexpr double kMaxTolerancePct = 100;

std::string fmt(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

// A pattern or name matched against rows is one line (config::read_line): a NUL would end it
// early for fnmatch ("axpby/*\0zzz" matches every axpby row), and no case, backend or device name
// holds a control byte.
std::string read_name(const Source& src, const YAML::Node& n, const std::string& what) {
  return config::read_line(src, n, what);
}

Reference read_entry(const Source& src, const YAML::Node& n, std::size_t i) {
  const std::string ctx = "references[" + std::to_string(i) + "]";
  config::require_map(src, n, ctx);
  config::check_keys(src, n, kEntryKeys, ctx);
  Reference r;
  r.where = src.where(n);
  r.pattern = read_name(src, config::require_key(src, n, "case", ctx), ctx + ".case");
  if (n["backend"])
    r.backend = read_name(src, n["backend"], ctx + ".backend");
  if (n["device"])
    r.device = read_name(src, n["device"], ctx + ".device");
  if (bool(n["rate"]) == bool(n["pct_of_ceiling"]))
    src.fail(n, ctx + " needs exactly one of 'rate' (GB/s or GFLOP/s) and 'pct_of_ceiling'");
  r.pct = bool(n["pct_of_ceiling"]);
  const YAML::Node figure = r.pct ? n["pct_of_ceiling"] : n["rate"];
  const std::string figure_name = ctx + (r.pct ? ".pct_of_ceiling" : ".rate");
  r.expected = config::read_double(src, figure, figure_name);
  if (!(r.expected > 0) || r.expected > kMaxExpected)
    src.fail(figure, figure_name + " must be a positive number, got " + fmt(r.expected));
  if (n["unit"]) {
    if (r.pct)
      src.fail(n["unit"], ctx + ".unit applies to 'rate' only (pct_of_ceiling is in percent)");
    r.unit = config::read_string(src, n["unit"], ctx + ".unit");
    if (std::find(kUnits.begin(), kUnits.end(), r.unit) == kUnits.end()) {
      const std::string hint = config::closest(r.unit, kUnits);
      src.fail(n["unit"], ctx + ".unit must be GB/s or GFLOP/s, got '" + r.unit + "'" +
                              (hint.empty() ? "" : " (did you mean '" + hint + "'?)"));
    }
  }
  if (n["tolerance_pct"]) {
    r.tolerance_pct = config::read_double(src, n["tolerance_pct"], ctx + ".tolerance_pct");
    if (r.tolerance_pct < 0 || r.tolerance_pct >= kMaxTolerancePct)
      src.fail(n["tolerance_pct"], ctx + ".tolerance_pct must be at least 0 and below 100, got " +
                                       fmt(r.tolerance_pct));
  }
  return r;
}

} // namespace

References parse_references(const std::string& label, const std::string& text) {
  Source src(label);
  const YAML::Node root = config::load_document(src, text);
  config::require_map(src, root, "a references file");
  config::check_keys(src, root, kTopKeys, "the references file");
  References refs;
  refs.file = label;
  if (root["description"])
    refs.description = config::read_string(src, root["description"], "description");
  const YAML::Node list = config::require_key(src, root, "references", "the references file");
  if (!list.IsSequence() || list.size() == 0)
    src.fail(list, "references must be a non-empty list of entries (case, rate or "
                   "pct_of_ceiling, tolerance_pct)");
  for (std::size_t i = 0; i < list.size(); ++i)
    refs.entries.push_back(read_entry(src, list[i], i));
  return refs;
}

namespace {

using json = nlohmann::json;

json entry_key_schema(const std::string& key) {
  json name = config::line_schema(); // read_name
  if (key == "case" || key == "backend" || key == "device") {
    name["description"] = key == "case" ? "a glob over case ids ('*' matches '/' too)"
                                        : "a glob over the run's " + key + "; absent: any";
    return name;
  }
  if (key == "rate" || key == "pct_of_ceiling")
    return {{"type", "number"}, {"exclusiveMinimum", 0}, {"maximum", kMaxExpected}};
  if (key == "unit")
    return {{"type", "string"},
            {"enum", kUnits},
            {"description", "the rate's unit; absent: the family's own"}};
  if (key == "tolerance_pct")
    return {{"type", "number"}, {"minimum", 0}, {"exclusiveMaximum", kMaxTolerancePct}};
  throw std::logic_error("schema: no rule for the references entry key '" + key + "'");
}

} // namespace

json references_schema() {
  json props = json::object();
  for (const auto& key : kEntryKeys)
    props[key] = entry_key_schema(key);
  const json entry = {{"type", "object"},
                      {"additionalProperties", false},
                      {"required", {"case"}},
                      {"properties", props},
                      // exactly one of rate and pct_of_ceiling; unit with rate only
                      {"oneOf", {{{"required", {"rate"}}}, {{"required", {"pct_of_ceiling"}}}}},
                      {"if", {{"required", {"pct_of_ceiling"}}}},
                      {"then", {{"not", {{"required", {"unit"}}}}}}};
  json top = json::object();
  for (const auto& key : kTopKeys)
    top[key] = key == "references" ? json{{"type", "array"}, {"minItems", 1}, {"items", entry}}
                                   : json{{"type", "string"}, {"minLength", 1}};
  return {{"$schema", "http://json-schema.org/draft-07/schema#"},
          {"title", "miniapp performance references"},
          {"description", "A performance references file of miniapp run and compare "
                          "--references (docs/history.md); generated by `miniapp schema "
                          "references`."},
          {"type", "object"},
          {"additionalProperties", false},
          {"required", {"references"}},
          {"properties", top}};
}

References load_references(const std::string& path) {
  return parse_references(path, config::read_text_file(path, "references file"));
}

const char* to_string(Status s) {
  switch (s) {
  case Status::met:
    return "met";
  case Status::below:
    return "below";
  default:
    return "none";
  }
}

std::string row_unit(const std::string& family) {
  return rate_is_gflops(family) ? "GFLOP/s" : "GB/s";
}

std::string case_id(const compare::Row& row) {
  Case c; // the parameters the row's columns hold (core/case_fields.hpp), then its identity
  for (const auto& f : case_fields())
    if (f.column)
      if (const auto it = row.fields.find(f.name); it != row.fields.end())
        set_case_value(f, c, *it);
  c.family = row.family;
  c.variant = row.variant;
  if (!parse_precision(row.precision, c.precision))
    c.precision = Precision::float32;
  c.params_used = params_read(row.family, row.variant); // as the plan sets it: the id's pieces
  return c.id();
}

double pct_of_ceiling(const compare::Row& row) {
  if (!(row.ceiling_value > 0))
    return -1;
  if (row.ceiling_unit == "GB/s")
    return row.gbs / row.ceiling_value * 100;
  if (row.ceiling_unit == "GFLOP/s")
    return row.gflops / row.ceiling_value * 100;
  return -1;
}

bool glob_match(const std::string& pattern, const std::string& text) {
  return ::fnmatch(pattern.c_str(), text.c_str(), 0) == 0;
}

Check check(const References& refs, const compare::Run& run, const compare::Row& row) {
  Check c;
  if (row.status != "ok")
    return c;
  const std::string id = case_id(row);
  for (const auto& ref : refs.entries) {
    if (!glob_match(ref.pattern, id) ||
        (!ref.backend.empty() && !glob_match(ref.backend, run.backend)) ||
        (!ref.device.empty() && !glob_match(ref.device, run.device)))
      continue;
    c.ref = &ref;
    c.expected = ref.expected;
    c.threshold = ref.expected * (1 - ref.tolerance_pct / 100);
    if (ref.pct) {
      c.unit = "% of ceiling";
      c.measured = pct_of_ceiling(row);
      if (c.measured < 0) { // no ceiling measured in this run: nothing to compare with
        c.ref = nullptr;
        return c;
      }
    } else {
      c.unit = ref.unit.empty() ? row_unit(row.family) : ref.unit;
      c.measured = c.unit == "GFLOP/s" ? row.gflops : row.gbs;
    }
    c.status = c.measured >= c.threshold ? Status::met : Status::below;
    return c;
  }
  return c;
}

std::string describe(const Check& c, const std::string& case_name) {
  std::string s = case_name + ": " + fmt(c.measured) + " " + c.unit + ", " +
                  (c.status == Status::below ? "below" : "meets") + " the reference " +
                  fmt(c.expected) + " " + c.unit;
  if (c.ref && c.ref->tolerance_pct > 0)
    s += " (-" + fmt(c.ref->tolerance_pct) + "%: " + fmt(c.threshold) + ")";
  if (c.ref)
    s += " [" + c.ref->where + "]";
  return s;
}

} // namespace miniapp::references
