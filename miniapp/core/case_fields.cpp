#include "core/case_fields.hpp"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <sstream>

namespace miniapp {

namespace {
using json = nlohmann::json;
} // namespace

// The id pieces reproduce the id every earlier run recorded (results.json config.cases[].id,
// the autotune cache): changing one splits old runs from new ones. The pieces of k, alpha, beta
// and in_place appear where the case's variant reads the parameter (Case::params_used, from the
// family table), which is where every id before this rule had them.
const std::vector<CaseField>& case_fields() {
  static const std::vector<CaseField> fields = {
      {"family", FieldType::text, Param{}, [](const Case& c) { return json(c.family); },
       [](std::ostream& os, const Case& c) { os << c.family; }, true},
      {"variant", FieldType::text, Param{}, [](const Case& c) { return json(c.variant); },
       [](std::ostream& os, const Case& c) { os << "/" << c.variant; }, true},
      {"precision", FieldType::text, Param{},
       [](const Case& c) { return json(to_string(c.precision)); },
       [](std::ostream& os, const Case& c) { os << "/" << to_string(c.precision); }, true},
      {"m", FieldType::integer, Param{}, [](const Case& c) { return json(c.m); },
       [](std::ostream& os, const Case& c) { os << "/" << c.m; }, true},
      {"n", FieldType::integer, Param{}, [](const Case& c) { return json(c.n); },
       [](std::ostream& os, const Case& c) { os << "x" << c.n; }, true},
      {"k", FieldType::integer, Param::k, [](const Case& c) { return json(c.k); },
       [](std::ostream& os, const Case& c) {
         if (c.uses(Param::k))
           os << "x" << c.k;
       },
       true},
      {"tile", FieldType::integer, Param::tile, [](const Case& c) { return json(c.tile); },
       [](std::ostream& os, const Case& c) {
         if (c.tile)
           os << "/tile=" << c.tile;
         if (c.tile_auto)
           os << "/tile=auto";
         if (c.team_auto) // ahead of tile_cols: where the id has always had it
           os << "/team=auto";
       },
       true},
      {"tile_cols", FieldType::integer, Param::tile_cols,
       [](const Case& c) { return json(c.tile_cols); },
       [](std::ostream& os, const Case& c) {
         if (c.tile_cols)
           os << "x" << c.tile_cols;
       },
       true},
      {"team_size", FieldType::integer, Param::team_size,
       [](const Case& c) { return json(c.team_size); },
       [](std::ostream& os, const Case& c) {
         if (c.team_size)
           os << "/team=" << c.team_size;
       },
       true},
      // As the config gives it ("" = the default): in the id only when given, so the ids of runs
      // before shapes existed stay as they were. The results column is the shape that ran
      // (report/result_fields.cpp), which needs the backend.
      {"shape", FieldType::text, Param::shape,
       [](const Case& c) { return c.shape_auto ? json("auto") : json(c.shape); },
       [](std::ostream& os, const Case& c) {
         if (c.shape_auto)
           os << "/shape=auto";
         else if (!c.shape.empty())
           os << "/shape=" << c.shape;
       },
       false},
      {"alpha", FieldType::number, Param::alpha, [](const Case& c) { return json(c.alpha); },
       [](std::ostream& os, const Case& c) {
         if (c.uses(Param::alpha))
           os << "/a=" << c.alpha; // 6 significant digits, as ostream writes a double
       },
       true},
      {"beta", FieldType::number, Param::beta, [](const Case& c) { return json(c.beta); },
       [](std::ostream& os, const Case& c) {
         if (c.uses(Param::beta))
           os << ",b=" << c.beta;
       },
       true},
      {"in_place", FieldType::boolean, Param::in_place,
       [](const Case& c) { return json(c.in_place); },
       [](std::ostream& os, const Case& c) {
         if (c.uses(Param::in_place) && c.in_place)
           os << "/in_place";
       },
       true},
      {"pinned", FieldType::boolean, Param{}, [](const Case& c) { return json(c.pinned); },
       [](std::ostream& os, const Case& c) {
         if (c.pinned)
           os << "/pinned";
       },
       true},
      {"seed", FieldType::integer, Param{}, [](const Case& c) { return json(c.seed); }, nullptr,
       true},
      // Not a results column (yet): only results.json's config.cases has it.
      {"init", FieldType::text, Param{}, [](const Case& c) { return json(c.init); },
       [](std::ostream& os, const Case& c) {
         // Inputs: only what differs from the default (random, seed 42), so sweeps stay apart.
         if (c.init != "random")
           os << "/init=" << c.init;
         else if (c.seed != 42)
           os << "/seed=" << c.seed;
       },
       false},
  };
  return fields;
}

std::string Case::id() const {
  std::ostringstream os;
  for (const auto& f : case_fields())
    if (f.id)
      f.id(os, *this);
  return os.str();
}

json case_value(const CaseField& f, const Case& c) {
  if (f.param != Param{} && !c.uses(f.param))
    return nullptr;
  return f.get(c);
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
