#include "compare/notes.hpp"

#include "core/text.hpp"

#include <cstdint>
#include <map>

namespace miniapp {
namespace compare {

namespace {
std::string describe(double v) {
  return fmt("%.6g", v);
}
} // namespace

void param_notes(const std::string& where, const Row& base, const Row& other,
                 const std::string& base_name, const std::string& other_name, bool on_device,
                 std::vector<CaseNote>& notes) {
  const auto differ = [&](const char* what, const std::string& a, const std::string& b) {
    if (a != b)
      notes.push_back({std::string(what) + " differs: " + a + " in " + base_name + ", " + b +
                           " in " + other_name,
                       where});
  };
  // A parameter one side's variant does not use (null in its file) is no difference.
  const auto both = [&](Param p) { return base.uses(p) && other.uses(p); };
  if (both(Param::alpha))
    differ("alpha", describe(base.number("alpha")), describe(other.number("alpha")));
  if (both(Param::beta))
    differ("beta", describe(base.number("beta")), describe(other.number("beta")));
  differ("seed", std::to_string(base.integer("seed")), std::to_string(other.integer("seed")));
  differ("repetitions", std::to_string(base.repetitions), std::to_string(other.repetitions));
  differ("warmup", std::to_string(base.warmup), std::to_string(other.warmup));
  // A file written before samples were chained (no count: one launch between two fences per
  // sample) against one whose sample chained several (core/timing.hpp): a fence costs a short
  // launch up to a quarter of its time. Two files that both chain follow one rule, whatever
  // their counts (a launch near the 2 ms of a sample is chained once in one, twice in another).
  // The text names no count, so the note on every case of the run is one line.
  const std::int64_t nb = base.integer("launches_per_sample"),
                     no = other.integer("launches_per_sample");
  const char* one = "one launch per sample";
  const char* chained = "launches chained per sample";
  if (nb == 0 && no > 1)
    differ("timing", one, chained);
  else if (no == 0 && nb > 1)
    differ("timing", chained, one);
  if (both(Param::team_size))
    differ("team_size", std::to_string(base.integer("team_size")),
           std::to_string(other.integer("team_size")));
  // (a file written before shapes has none: no note, the run's default is not known)
  if (both(Param::shape) && !base.text("shape").empty() && !other.text("shape").empty())
    differ("shape", base.text("shape"), other.text("shape"));
  const auto flag = [](const Row& r, const char* name) { return r.flag(name) ? "true" : "false"; };
  if (both(Param::in_place))
    differ("in_place", flag(base, "in_place"), flag(other, "in_place"));
  if (on_device) // host memory is what a host backend computes in: pinning changes nothing
    differ("pinned", flag(base, "pinned"), flag(other, "pinned"));
}

std::vector<std::string> aggregate(const std::vector<CaseNote>& notes) {
  constexpr std::size_t kListed = 6;
  std::vector<std::string> kinds;
  std::map<std::string, std::vector<std::string>> cases;
  for (const auto& n : notes) {
    auto& list = cases[n.what];
    if (list.empty())
      kinds.push_back(n.what);
    list.push_back(n.where);
  }
  std::vector<std::string> out;
  for (const auto& k : kinds) {
    const auto& list = cases[k];
    std::string s =
        k + " in " + std::to_string(list.size()) + (list.size() == 1 ? " case: " : " cases: ");
    for (std::size_t i = 0; i < list.size() && i < kListed; ++i)
      s += (i ? ", " : "") + list[i];
    if (list.size() > kListed)
      s += " and " + std::to_string(list.size() - kListed) + " more";
    out.push_back(s);
  }
  return out;
}

} // namespace compare
} // namespace miniapp
