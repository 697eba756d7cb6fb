#include "core/case_fields.hpp"
#include "core/text.hpp"

#include "core/case_limits.hpp"

#include <cerrno>
#include <cstdio>
#include <stdexcept>
#include <cmath>
#include <cstdlib>
#include <sstream>

namespace miniapp {

namespace {
using json = nlohmann::json;
} // namespace

namespace {
namespace lim = config::limits;

std::string text_of(const json& v) {
  return v.get<std::string>();
}
bool is_auto(const json& v) {
  return v.is_string() && v == "auto";
}
} // namespace

// The id pieces reproduce the id every earlier run recorded (results.json config.cases[].id,
// the autotune cache): changing one splits old runs from new ones. The pieces of k, alpha, beta
// and in_place appear where the case's variant reads the parameter (Case::params_used, from the
// family table), which is where every id before this rule had them. Likewise the hash pieces
// reproduce the text every earlier config was hashed from (resume compares the hashes).
// Row fields, in order (case_fields.hpp): name, type, param, get, id, column, sweep, min, max,
// takes_auto, set, hash, default_value, unset_text, id_segment, swept_first, words.
const std::vector<CaseField>& case_fields() {
  static const std::vector<CaseField> fields = {
      {"family", FieldType::text, Param{}, [](const Case& c) { return json(c.family); },
       [](std::ostream& os, const Case& c) { os << c.family; }, true, false, 0, 0, false,
       [](Case& c, const json& v) { c.family = text_of(v); },
       [](std::ostream& os, const Case& c) { os << c.family; }},
      {"variant", FieldType::text, Param{}, [](const Case& c) { return json(c.variant); },
       [](std::ostream& os, const Case& c) { os << "/" << c.variant; }, true, true, 0, 0, false,
       [](Case& c, const json& v) { c.variant = text_of(v); },
       [](std::ostream& os, const Case& c) { os << " " << c.variant; }},
      {"precision", FieldType::text, Param{},
       [](const Case& c) { return json(to_string(c.precision)); },
       [](std::ostream& os, const Case& c) { os << "/" << to_string(c.precision); }, true, true, 0,
       0, false, [](Case& c, const json& v) { parse_precision(text_of(v), c.precision); },
       [](std::ostream& os, const Case& c) { os << " " << to_string(c.precision); }, 0, nullptr,
       nullptr, true,
       [] {
         std::vector<std::string> names;
         for (Precision p : kPrecisions)
           names.push_back(to_string(p));
         return names;
       }},
      {"m", FieldType::integer, Param{}, [](const Case& c) { return json(c.m); },
       [](std::ostream& os, const Case& c) { os << "/" << c.m; }, true, true, 1, lim::kMaxDimension,
       false, [](Case& c, const json& v) { c.m = v.get<std::int64_t>(); },
       [](std::ostream& os, const Case& c) { os << " m=" << c.m; }},
      {"n", FieldType::integer, Param{}, [](const Case& c) { return json(c.n); },
       [](std::ostream& os, const Case& c) { os << "x" << c.n; }, true, true, 1, lim::kMaxDimension,
       false, [](Case& c, const json& v) { c.n = v.get<std::int64_t>(); },
       [](std::ostream& os, const Case& c) { os << " n=" << c.n; }},
      {"k", FieldType::integer, Param::k, [](const Case& c) { return json(c.k); },
       [](std::ostream& os, const Case& c) {
         if (c.uses(Param::k))
           os << "x" << c.k;
       },
       true, true, 1, lim::kMaxDimension, false,
       [](Case& c, const json& v) { c.k = v.get<std::int64_t>(); },
       [](std::ostream& os, const Case& c) { os << " k=" << c.k; }, 0, "n"},
      {"tile", FieldType::integer, Param::tile, [](const Case& c) { return json(c.tile); },
       [](std::ostream& os, const Case& c) {
         if (c.tile)
           os << "/tile=" << c.tile;
         if (c.tile_auto)
           os << "/tile=auto";
         if (c.team_auto) // ahead of tile_cols: where the id has always had it
           os << "/team=auto";
       },
       true, true, 1, lim::kMaxTileSide, true,
       [](Case& c, const json& v) {
         c.tile_auto = is_auto(v);
         c.tile = c.tile_auto ? 0 : int(v.get<std::int64_t>());
       },
       [](std::ostream& os, const Case& c) {
         os << " tile=" << (c.tile_auto ? "auto" : std::to_string(c.tile));
       },
       0, "auto", "/tile="},
      {"tile_cols", FieldType::integer, Param::tile_cols,
       [](const Case& c) { return json(c.tile_cols); },
       [](std::ostream& os, const Case& c) {
         if (c.tile_cols)
           os << "x" << c.tile_cols;
       },
       true, true, 1, lim::kMaxTileSide, false,
       [](Case& c, const json& v) { c.tile_cols = int(v.get<std::int64_t>()); },
       [](std::ostream& os, const Case& c) { os << " tile_cols=" << c.tile_cols; }, 0, nullptr, ""},
      {"team_size", FieldType::integer, Param::team_size,
       [](const Case& c) { return json(c.team_size); },
       [](std::ostream& os, const Case& c) {
         if (c.team_size)
           os << "/team=" << c.team_size;
       },
       true, true, 1, lim::kMaxTeamSize, true,
       [](Case& c, const json& v) {
         c.team_auto = is_auto(v);
         c.team_size = c.team_auto ? 0 : int(v.get<std::int64_t>());
       },
       [](std::ostream& os, const Case& c) {
         os << " team_size=" << (c.team_auto ? "auto" : std::to_string(c.team_size));
       },
       0, "fitted to the backend", "/team="},
      // As the config gives it ("" = the default): in the id only when given, so the ids of runs
      // before shapes existed stay as they were. The results column is the shape that ran
      // (results/result_fields.cpp), which needs the backend.
      {"shape", FieldType::text, Param::shape,
       [](const Case& c) { return c.shape_auto ? json("auto") : json(c.shape); },
       [](std::ostream& os, const Case& c) {
         if (c.shape_auto)
           os << "/shape=auto";
         else if (!c.shape.empty())
           os << "/shape=" << c.shape;
       },
       false, true, 0, 0, true,
       [](Case& c, const json& v) {
         c.shape_auto = is_auto(v);
         c.shape = c.shape_auto ? "" : text_of(v); // checked against the lists by the plan
       },
       [](std::ostream& os, const Case& c) {
         // (only where given: the hashes of configs written before shapes stay as they were)
         if (c.shape_auto)
           os << " shape=auto";
         else if (!c.shape.empty())
           os << " shape=" << c.shape;
       },
       0, "the first of its list (below)", "/shape="},
      {"alpha", FieldType::number, Param::alpha, [](const Case& c) { return json(c.alpha); },
       [](std::ostream& os, const Case& c) {
         if (c.uses(Param::alpha))
           os << "/a=" << c.alpha; // 6 significant digits, as ostream writes a double
       },
       true, true, 0, 0, false, [](Case& c, const json& v) { c.alpha = v.get<double>(); },
       [](std::ostream& os, const Case& c) { os << " alpha=" << exact_text(c.alpha); }},
      {"beta", FieldType::number, Param::beta, [](const Case& c) { return json(c.beta); },
       [](std::ostream& os, const Case& c) {
         if (c.uses(Param::beta))
           os << ",b=" << c.beta;
       },
       true, true, 0, 0, false, [](Case& c, const json& v) { c.beta = v.get<double>(); },
       [](std::ostream& os, const Case& c) { os << " beta=" << exact_text(c.beta); }},
      {"in_place", FieldType::boolean, Param::in_place,
       [](const Case& c) { return json(c.in_place); },
       [](std::ostream& os, const Case& c) {
         if (c.uses(Param::in_place) && c.in_place)
           os << "/in_place";
       },
       true, true, 0, 0, false, [](Case& c, const json& v) { c.in_place = v.get<bool>(); },
       [](std::ostream& os, const Case& c) { os << " in_place=" << c.in_place; }},
      {"pinned", FieldType::boolean, Param{}, [](const Case& c) { return json(c.pinned); },
       [](std::ostream& os, const Case& c) {
         if (c.pinned)
           os << "/pinned";
       },
       true, true, 0, 0, false, [](Case& c, const json& v) { c.pinned = v.get<bool>(); },
       [](std::ostream& os, const Case& c) { os << " pinned=" << c.pinned; }},
      // Not a results column (yet): only results.json's config.cases has it. Ahead of seed: the
      // config hash has always written init first.
      {"init", FieldType::text, Param{}, [](const Case& c) { return json(c.init); },
       [](std::ostream& os, const Case& c) {
         // Inputs: only what differs from the default (random, seed 42), so sweeps stay apart.
         if (c.init != "random")
           os << "/init=" << c.init;
         else if (c.seed != 42)
           os << "/seed=" << c.seed;
       },
       false, false, 0, 0, false, [](Case& c, const json& v) { c.init = text_of(v); },
       [](std::ostream& os, const Case& c) { os << " init=" << c.init; }},
      {"seed", FieldType::integer, Param{}, [](const Case& c) { return json(c.seed); }, nullptr,
       true, true, 0, 0, false,
       [](Case& c, const json& v) { c.seed = std::uint64_t(v.get<std::int64_t>()); },
       [](std::ostream& os, const Case& c) { os << " seed=" << c.seed; }},
      // transpose tiled: columns of padding on each row of its T x (T + pad) scratch tile. 1 keeps
      // a column of the tile off a single shared-memory bank; 0 shows what the conflicts cost.
      {"pad", FieldType::integer, Param(1u << 8), nullptr, nullptr, true, true, 0,
       lim::kMaxTileSide, false, nullptr, nullptr, 1},
  };
  return fields;
}

const CaseField* find_case_field(const std::string& name) {
  for (const auto& f : case_fields())
    if (name == f.name)
      return &f;
  return nullptr;
}

Param param_named(const std::string& name) {
  const CaseField* f = find_case_field(name);
  if (!f || f->param == Param{})
    throw std::logic_error("'" + name + "' is not a variant's parameter in the case-field table");
  return f->param;
}

std::int64_t Case::table_param(const std::string& name) const {
  const auto it = table_params.find(name);
  if (it != table_params.end())
    return it->second;
  const CaseField* f = find_case_field(name);
  if (!f || !f->in_table())
    throw std::logic_error("'" + name + "' is not a table parameter (core/case_fields.cpp)");
  return f->default_value;
}

std::string Case::id() const {
  std::ostringstream os;
  for (const auto& f : case_fields())
    if (f.id)
      f.id(os, *this);
    else if (f.in_table() && uses(f.param) && table_param(f.name) != f.default_value)
      os << "/" << f.name << "=" << table_param(f.name);
  return os.str();
}

json case_value(const CaseField& f, const Case& c) {
  if (f.param != Param{} && !c.uses(f.param))
    return nullptr;
  return f.in_table() ? json(c.table_param(f.name)) : f.get(c);
}

void set_case_value(const CaseField& f, Case& c, const json& v) {
  if (v.is_null())
    return;
  if (f.in_table())
    c.table_params[f.name] = v.get<std::int64_t>();
  else
    f.set(c, v);
}

namespace {
// The whole text as a number; false for "", "12abc", "0x10".
bool parse_double(const std::string& s, double& out) {
  if (s.empty() || s.find_first_not_of("0123456789+-.eEinfatyINFATY") != std::string::npos)
    return false;
  char* end = nullptr;
  out = std::strtod(s.c_str(), &end);
  return end && *end == '\0';
}
json integral(double v) {
  if (!std::isfinite(v) || v != std::floor(v) || std::fabs(v) > 9.2e18)
    return nullptr;
  return json(static_cast<std::int64_t>(v));
}
} // namespace

json typed_value(FieldType t, const json& v) {
  if (v.is_null() || (v.is_string() && v.get_ref<const std::string&>().empty()))
    return nullptr;
  switch (t) {
  case FieldType::text:
    if (v.is_string())
      return v;
    if (v.is_boolean())
      return v.get<bool>() ? "true" : "false";
    // Schema 1 turned text that looked like a number ("2024") into one.
    if (v.is_number_integer())
      return v.dump();
    if (v.is_number_float()) {
      const json i = integral(v.get<double>());
      return i.is_null() ? json(v.dump()) : json(i.dump());
    }
    return nullptr;
  case FieldType::boolean:
    if (v.is_boolean())
      return v;
    if (v.is_string() && (v == "true" || v == "false"))
      return v == "true";
    if (v.is_number())
      return v.get<double>() != 0;
    return nullptr;
  case FieldType::integer:
    if (v.is_number_integer())
      return v;
    if (v.is_number_float())
      return integral(v.get<double>());
    if (v.is_string()) {
      const std::string& s = v.get_ref<const std::string&>();
      char* end = nullptr;
      errno = 0;
      const long long i = std::strtoll(s.c_str(), &end, 10);
      if (end && *end == '\0' && errno == 0)
        return json(static_cast<std::int64_t>(i));
      double d = 0;
      return parse_double(s, d) ? integral(d) : json(nullptr);
    }
    return nullptr;
  case FieldType::number:
    if (v.is_number())
      return json(v.get<double>());
    if (v.is_string()) {
      double d = 0;
      return parse_double(v.get_ref<const std::string&>(), d) && std::isfinite(d) ? json(d)
                                                                                  : json(nullptr);
    }
    return nullptr;
  case FieldType::number_list: {
    if (!v.is_array())
      return nullptr;
    json out = json::array();
    for (const auto& x : v) {
      const json d = typed_value(FieldType::number, x);
      if (d.is_null())
        return nullptr; // a list with a hole cannot be paired by repetition
      out.push_back(d);
    }
    return out;
  }
  }
  return nullptr;
}

} // namespace miniapp
