#include "core/case_fields.hpp"
#include "core/case_field_rows.hpp"
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
// Each row names its fields (core/case_field_rows.hpp; case_fields.hpp says what each means).
const std::vector<CaseField>& case_fields() {
  using Row = CaseFieldRow;
  static const std::vector<CaseField> fields = {
      Row("family", FieldType::text)
          .column()
          .get([](const Case& c) { return json(c.family); })
          .id([](std::ostream& os, const Case& c) { os << c.family; })
          .set([](Case& c, const json& v) { c.family = text_of(v); })
          .hash([](std::ostream& os, const Case& c) { os << c.family; }),
      Row("variant", FieldType::text)
          .column()
          .sweep()
          .get([](const Case& c) { return json(c.variant); })
          .id([](std::ostream& os, const Case& c) { os << "/" << c.variant; })
          .set([](Case& c, const json& v) { c.variant = text_of(v); })
          .hash([](std::ostream& os, const Case& c) { os << " " << c.variant; }),
      Row("precision", FieldType::text)
          .column()
          .sweep()
          .swept_first()
          .words([] {
            std::vector<std::string> names;
            for (Precision p : kPrecisions)
              names.push_back(to_string(p));
            return names;
          })
          .get([](const Case& c) { return json(to_string(c.precision)); })
          .id([](std::ostream& os, const Case& c) { os << "/" << to_string(c.precision); })
          .set([](Case& c, const json& v) { parse_precision(text_of(v), c.precision); })
          .hash([](std::ostream& os, const Case& c) { os << " " << to_string(c.precision); }),
      Row("m", FieldType::integer)
          .column()
          .sweep()
          .min(1)
          .max(lim::kMaxDimension)
          .get([](const Case& c) { return json(c.m); })
          .id([](std::ostream& os, const Case& c) { os << "/" << c.m; })
          .set([](Case& c, const json& v) { c.m = v.get<std::int64_t>(); })
          .hash([](std::ostream& os, const Case& c) { os << " m=" << c.m; }),
      Row("n", FieldType::integer)
          .column()
          .sweep()
          .min(1)
          .max(lim::kMaxDimension)
          .get([](const Case& c) { return json(c.n); })
          .id([](std::ostream& os, const Case& c) { os << "x" << c.n; })
          .set([](Case& c, const json& v) { c.n = v.get<std::int64_t>(); })
          .hash([](std::ostream& os, const Case& c) { os << " n=" << c.n; }),
      Row("k", FieldType::integer)
          .param(Param::k)
          .column()
          .sweep()
          .min(1)
          .max(lim::kMaxDimension)
          .unset_text("n")
          .get([](const Case& c) { return json(c.k); })
          .id([](std::ostream& os, const Case& c) {
            if (c.uses(Param::k))
              os << "x" << c.k;
          })
          .set([](Case& c, const json& v) { c.k = v.get<std::int64_t>(); })
          .hash([](std::ostream& os, const Case& c) { os << " k=" << c.k; }),
      Row("tile", FieldType::integer)
          .param(Param::tile)
          .column()
          .sweep()
          .min(1)
          .max(lim::kMaxTileSide)
          .takes_auto()
          .unset_text("auto")
          .id_segment("/tile=")
          .get([](const Case& c) { return json(c.tile); })
          .id([](std::ostream& os, const Case& c) {
            if (c.tile)
              os << "/tile=" << c.tile;
            if (c.tile_auto)
              os << "/tile=auto";
            if (c.team_auto) // ahead of tile_cols: where the id has always had it
              os << "/team=auto";
          })
          .set([](Case& c, const json& v) {
            c.tile_auto = is_auto(v);
            c.tile = c.tile_auto ? 0 : int(v.get<std::int64_t>());
          })
          .hash([](std::ostream& os, const Case& c) {
            os << " tile=" << (c.tile_auto ? "auto" : std::to_string(c.tile));
          }),
      Row("tile_cols", FieldType::integer)
          .param(Param::tile_cols)
          .column()
          .sweep()
          .min(1)
          .max(lim::kMaxTileSide)
          .id_segment("")
          .get([](const Case& c) { return json(c.tile_cols); })
          .id([](std::ostream& os, const Case& c) {
            if (c.tile_cols)
              os << "x" << c.tile_cols;
          })
          .set([](Case& c, const json& v) { c.tile_cols = int(v.get<std::int64_t>()); })
          .hash([](std::ostream& os, const Case& c) { os << " tile_cols=" << c.tile_cols; }),
      Row("team_size", FieldType::integer)
          .param(Param::team_size)
          .column()
          .sweep()
          .min(1)
          .max(lim::kMaxTeamSize)
          .takes_auto()
          .unset_text("fitted to the backend")
          .id_segment("/team=")
          .get([](const Case& c) { return json(c.team_size); })
          .id([](std::ostream& os, const Case& c) {
            if (c.team_size)
              os << "/team=" << c.team_size;
          })
          .set([](Case& c, const json& v) {
            c.team_auto = is_auto(v);
            c.team_size = c.team_auto ? 0 : int(v.get<std::int64_t>());
          })
          .hash([](std::ostream& os, const Case& c) {
            os << " team_size=" << (c.team_auto ? "auto" : std::to_string(c.team_size));
          }),
      // As the config gives it ("" = the default): in the id only when given, so the ids of runs
      // before shapes existed stay as they were. The results column is the shape that ran
      // (results/result_fields.cpp), which needs the backend.
      Row("shape", FieldType::text)
          .param(Param::shape)
          .sweep()
          .takes_auto()
          .unset_text("the first of its list (below)")
          .id_segment("/shape=")
          .get([](const Case& c) { return c.shape_auto ? json("auto") : json(c.shape); })
          .id([](std::ostream& os, const Case& c) {
            if (c.shape_auto)
              os << "/shape=auto";
            else if (!c.shape.empty())
              os << "/shape=" << c.shape;
          })
          .set([](Case& c, const json& v) {
            c.shape_auto = is_auto(v);
            c.shape = c.shape_auto ? "" : text_of(v); // checked against the lists by the plan
          })
          .hash([](std::ostream& os, const Case& c) {
            // (only where given: the hashes of configs written before shapes stay as they were)
            if (c.shape_auto)
              os << " shape=auto";
            else if (!c.shape.empty())
              os << " shape=" << c.shape;
          }),
      Row("alpha", FieldType::number)
          .param(Param::alpha)
          .column()
          .sweep()
          .get([](const Case& c) { return json(c.alpha); })
          .id([](std::ostream& os, const Case& c) {
            if (c.uses(Param::alpha))
              os << "/a=" << c.alpha; // 6 significant digits, as ostream writes a double
          })
          .set([](Case& c, const json& v) { c.alpha = v.get<double>(); })
          .hash([](std::ostream& os, const Case& c) { os << " alpha=" << exact_text(c.alpha); }),
      Row("beta", FieldType::number)
          .param(Param::beta)
          .column()
          .sweep()
          .get([](const Case& c) { return json(c.beta); })
          .id([](std::ostream& os, const Case& c) {
            if (c.uses(Param::beta))
              os << ",b=" << c.beta;
          })
          .set([](Case& c, const json& v) { c.beta = v.get<double>(); })
          .hash([](std::ostream& os, const Case& c) { os << " beta=" << exact_text(c.beta); }),
      Row("in_place", FieldType::boolean)
          .param(Param::in_place)
          .column()
          .sweep()
          .get([](const Case& c) { return json(c.in_place); })
          .id([](std::ostream& os, const Case& c) {
            if (c.uses(Param::in_place) && c.in_place)
              os << "/in_place";
          })
          .set([](Case& c, const json& v) { c.in_place = v.get<bool>(); })
          .hash([](std::ostream& os, const Case& c) { os << " in_place=" << c.in_place; }),
      Row("pinned", FieldType::boolean)
          .column()
          .sweep()
          .get([](const Case& c) { return json(c.pinned); })
          .id([](std::ostream& os, const Case& c) {
            if (c.pinned)
              os << "/pinned";
          })
          .set([](Case& c, const json& v) { c.pinned = v.get<bool>(); })
          .hash([](std::ostream& os, const Case& c) { os << " pinned=" << c.pinned; }),
      // Not a results column (yet): only results.json's config.cases has it. Ahead of seed: the
      // config hash has always written init first.
      Row("init", FieldType::text)
          .get([](const Case& c) { return json(c.init); })
          .id([](std::ostream& os, const Case& c) {
            // Inputs: only what differs from the default (random, seed 42), so sweeps stay apart.
            if (c.init != "random")
              os << "/init=" << c.init;
            else if (c.seed != 42)
              os << "/seed=" << c.seed;
          })
          .set([](Case& c, const json& v) { c.init = text_of(v); })
          .hash([](std::ostream& os, const Case& c) { os << " init=" << c.init; }),
      Row("seed", FieldType::integer) // its id piece is init's
          .column()
          .sweep()
          .get([](const Case& c) { return json(c.seed); })
          .set([](Case& c, const json& v) { c.seed = std::uint64_t(v.get<std::int64_t>()); })
          .hash([](std::ostream& os, const Case& c) { os << " seed=" << c.seed; }),
      // transpose tiled: columns of padding on each row of its T x (T + pad) scratch tile. 1 keeps
      // a column of the tile off a single shared-memory bank; 0 shows what the conflicts cost.
      // A table parameter: no get, id, set or hash (Case::table_params keeps it by name).
      Row("pad", FieldType::integer)
          .param(Param(1u << 8))
          .column()
          .sweep()
          .min(0)
          .max(lim::kMaxTileSide)
          .default_value(1),
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
