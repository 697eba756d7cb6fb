#include "plan/config_hash.hpp"

#include "plan/plan.hpp"
#include "core/case_fields.hpp"
#include "core/text.hpp"

#include <cstdio>
#include <sstream>

namespace miniapp {

namespace {

void matrix(std::ostream& os, const char* name, const std::vector<std::vector<double>>& m) {
  if (m.empty())
    return;
  os << " " << name << "=[";
  for (const auto& row : m) {
    os << "[";
    for (size_t j = 0; j < row.size(); ++j)
      os << (j ? "," : "") << exact_text(row[j]);
    os << "]";
  }
  os << "]";
}
} // namespace

std::string canonical_experiment(const Plan& plan) {
  const auto& s = plan.settings;
  std::ostringstream os;
  // Settings that change what is measured; not the keys of kKeysOutsideConfigHash, nor the rank
  // count: like threads, it is how a run was made, which compare shows and warns about on its own,
  // so the runs of a scaling study share their config's hash. mpi.grid and mpi.panel count as
  // written (0 = chosen from the ranks).
  os << "backend=" << plan.backend << "\nwarmup=" << s.warmup << "\nrepetitions=" << s.repetitions
     << "\nvalidation=" << (s.validate ? "on" : "off") << " rtol=" << exact_text(s.rtol)
     << "\nmpi.grid=" << s.grid_p << "x" << s.grid_q << " mpi.panel=" << s.panel << "\n";
  for (const Case& c : plan.cases) {
    // Each parameter as its row of the case-field table writes it; a table parameter only where
    // it is not its default, so the configs written before it keep their hash.
    os << "case ";
    for (const auto& f : case_fields())
      if (f.hash)
        f.hash(os, c);
      else if (f.in_table() && c.table_param(f.name) != f.default_value)
        os << " " << f.name << "=" << c.table_param(f.name);
    matrix(os, "a", c.a_values);
    matrix(os, "b", c.b_values);
    os << "\n";
  }
  return os.str();
}

bool outside_config_hash(std::string_view dotted_key) {
  for (const std::string_view key : kKeysOutsideConfigHash)
    if (dotted_key.substr(0, key.size()) == key &&
        (dotted_key.size() == key.size() || dotted_key[key.size()] == '.'))
      return true;
  return false;
}

std::string fnv1a_hex(const std::string& text) {
  std::uint64_t h = 1469598103934665603ull;
  for (unsigned char ch : text)
    h = (h ^ ch) * 1099511628211ull;
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

std::string config_hash(const Plan& plan) {
  return fnv1a_hex(canonical_experiment(plan));
}

std::string experiment_hash(const Plan& plan) {
  const std::string text = canonical_experiment(plan); // its first line is "backend=..."
  return fnv1a_hex(text.substr(text.find('\n') + 1));
}

} // namespace miniapp
