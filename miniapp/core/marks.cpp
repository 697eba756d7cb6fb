#include "core/marks.hpp"

#include "core/host_load.hpp"
#include "core/result.hpp"

namespace miniapp {

Marks& Marks::operator|=(const Marks& o) {
  busy = busy || o.busy;
  disturbed = disturbed || o.disturbed;
  uncertain = uncertain || o.uncertain;
  return *this;
}

Marks operator|(Marks a, const Marks& b) {
  return a |= b;
}

Marks row_marks(double host_others, double host_load, int host_cpus, bool ceiling_disturbed,
                double ceiling_high) {
  Marks m;
  m.busy = case_busy(host_others, host_load, host_cpus);
  m.disturbed = ceiling_disturbed;
  m.uncertain = ceiling_high > 0;
  return m;
}

Marks marks_of(const CaseResult& r, int host_cpus) {
  const bool ceiling = r.ceiling > 0; // a row without a ceiling has none to doubt
  return row_marks(r.host_others, r.host_load, host_cpus, ceiling && r.ceiling_disturbed,
                   ceiling && r.ceiling_uncertain() ? r.ceiling_high : 0);
}

std::string marks_text(const Marks& m) {
  return std::string(m.busy ? " (busy)" : "") + (m.disturbed ? " (disturbed)" : "") +
         (m.uncertain ? " (uncertain ceiling)" : "");
}

std::vector<std::string> mark_names(const Marks& m) {
  std::vector<std::string> names;
  for (const auto& [on, name] : {std::pair{m.busy, "busy"}, std::pair{m.disturbed, "disturbed"},
                                 std::pair{m.uncertain, "uncertain ceiling"}})
    if (on)
      names.push_back(name);
  return names;
}

std::string marks_csv(const Marks& m) {
  std::string s;
  for (const std::string& name : mark_names(m))
    s += (s.empty() ? "" : ";") + name;
  return s;
}

std::string marks_legend(const Marks& shown) {
  std::string s;
  const auto add = [&](bool on, const char* sentence) {
    if (on)
      s += (s.empty() ? "" : " ") + std::string(sentence);
  };
  add(shown.busy, "(busy): other work took more than a quarter of a CPU beside the case (or, "
                  "where that was not measured, the host's 1-minute load average around it was "
                  "above its CPUs), so its times include other work.");
  add(shown.disturbed,
      "(disturbed): the row's ceiling, re-checked after the case, had moved by more than its "
      "spread, so the machine changed around the case and its share of the ceiling is in doubt.");
  add(shown.uncertain,
      "(uncertain ceiling): the row's ceiling did not settle (its estimates never agreed, or its "
      "memory level read slower than a farther one also when measured again), so its share of "
      "the ceiling is uncertain.");
  add(shown.any(), "A figure computed from a marked row (a ratio, a speedup, an efficiency) "
                   "carries its marks.");
  return s;
}

} // namespace miniapp
