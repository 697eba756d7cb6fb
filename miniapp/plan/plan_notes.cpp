#include "plan/plan_notes.hpp"

#include "core/case_fields.hpp"
#include "kernels/families.hpp"

#include <set>

namespace miniapp {

namespace {

// The keys the case gives (in the case or its zip) with where the first value is written.
std::vector<std::pair<std::string, config::Position>> given_keys(const config::CaseSpec& spec) {
  std::vector<std::pair<std::string, config::Position>> out;
  for (const auto& [key, values] : spec.params)
    if (!values.empty())
      out.emplace_back(key, values.front().pos);
  for (std::size_t i = 0; i < spec.zip_keys.size(); ++i)
    if (!spec.zip_values[i].empty())
      out.emplace_back(spec.zip_keys[i], spec.zip_values[i].front().pos);
  return out;
}

// The variants the case runs: those it names (in the case or its zip), else every one.
std::vector<const Variant*> variants_run(const config::CaseSpec& spec, const Family& f) {
  std::vector<const config::Value*> named;
  if (spec.params.count("variant"))
    for (const auto& v : spec.params.at("variant"))
      named.push_back(&v);
  for (std::size_t i = 0; i < spec.zip_keys.size(); ++i)
    if (spec.zip_keys[i] == "variant")
      for (const auto& v : spec.zip_values[i])
        named.push_back(&v);
  std::vector<const Variant*> out;
  if (named.empty())
    for (const auto& v : f.variants)
      out.push_back(&v);
  for (const auto* v : named)
    if (const Variant* x = f.find_variant(v->as_string()))
      out.push_back(x);
  return out;
}

Param param_of(const std::string& key) {
  for (const auto& field : case_fields())
    if (key == field.name)
      return field.param;
  return Param{};
}

} // namespace

std::vector<std::string> unread_value_notes(const config::CaseSpec& spec) {
  std::vector<std::string> notes;
  const Family* f = find_family(spec.family.as_string());
  if (!f)
    return notes;
  std::set<std::string> said;
  for (const auto& [key, pos] : given_keys(spec)) {
    const Param p = param_of(key);
    if (p == Param{})
      continue;
    for (const Variant* v : variants_run(spec, *f))
      if (!v->reads(p) && said.insert(key + "/" + v->name).second)
        notes.push_back(pos.str() + ": note: " + f->name + " " + v->name + " does not read " + key +
                        "; its " + v->name +
                        " cases run without it (those that differ only in it run once)");
  }
  return notes;
}

bool reads_every_given_key(const config::CaseSpec& spec, const Case& c) {
  for (const auto& given : given_keys(spec)) {
    const Param p = param_of(given.first);
    if (p != Param{} && !c.uses(p))
      return false;
  }
  return true;
}

} // namespace miniapp
