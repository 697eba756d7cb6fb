#include "plan/config_hash.hpp"

#include "plan/plan.hpp"

#include <cstdio>
#include <sstream>

namespace miniapp {

namespace {
// %.17g: a double written so that it reads back as the same double.
std::string exact(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

void matrix(std::ostream& os, const char* name, const std::vector<std::vector<double>>& m) {
  if (m.empty())
    return;
  os << " " << name << "=[";
  for (const auto& row : m) {
    os << "[";
    for (size_t j = 0; j < row.size(); ++j)
      os << (j ? "," : "") << exact(row[j]);
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
     << "\nvalidation=" << (s.validate ? "on" : "off") << " rtol=" << exact(s.rtol)
     << "\nmpi.grid=" << s.grid_p << "x" << s.grid_q << " mpi.panel=" << s.panel << "\n";
  for (const Case& c : plan.cases) {
    os << "case " << c.family << " " << c.variant << " " << to_string(c.precision) << " m=" << c.m
       << " n=" << c.n << " k=" << c.k
       << " tile=" << (c.tile_auto ? "auto" : std::to_string(c.tile))
       << " tile_cols=" << c.tile_cols << " team_size="
       << (c.team_auto ? "auto" : std::to_string(c.team_size))
       // (only where given: the hashes of configs written before shapes stay as they were)
       << (c.shape_auto      ? " shape=auto"
           : c.shape.empty() ? ""
                             : " shape=" + c.shape)
       << " alpha=" << exact(c.alpha) << " beta=" << exact(c.beta) << " in_place=" << c.in_place
       << " pinned=" << c.pinned << " init=" << c.init << " seed=" << c.seed;
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
