#include "compare/portability.hpp"

#include "core/sinks.hpp"
#include "compare/tables.hpp"
#include "core/natural_order.hpp"
#include "core/text.hpp"
#include "compare/pooling.hpp"
#include "results/references.hpp"

#include <algorithm>
#include <map>
#include <sstream>

namespace miniapp {
namespace compare {

double harmonic_pp(const std::vector<double>& efficiencies) {
  if (efficiencies.empty())
    return 0;
  double inverse_sum = 0;
  for (double e : efficiencies) {
    if (!(e > 0))
      return 0;
    inverse_sum += 1 / e;
  }
  return double(efficiencies.size()) / inverse_sum;
}

std::string PpScore::text(double pp) const {
  if (failed)
    return "0 (failed on a platform)";
  if (pp < 0)
    return "-";
  const std::string value = fmt("%.3f", pp);
  if (complete())
    return value;
  return "incomplete " + std::to_string(ran) + "/" + std::to_string(platforms) + " (" + value +
         " over those)";
}

std::string PpScore::arch_na() const {
  return platforms < 2 ? "n/a: one platform" : "";
}

std::string PpScore::app_na() const {
  if (platforms < 2)
    return arch_na();
  return one_application() ? "n/a: one application for the problem" : "";
}

std::string PpScore::app_text() const {
  return app_na().empty() ? text(app_pp) : app_na();
}

std::string PpScore::arch_text() const {
  if (!arch_na().empty())
    return arch_na();
  return text(arch_pp); // an uncertain ceiling's PP is marked by the tables (PpScore::marks)
}

const std::string& Portability::label(std::size_t i) const {
  return i < platform_labels.size() && !platform_labels[i].empty() ? platform_labels[i]
                                                                   : platforms.at(i);
}

namespace {

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> parts;
  std::stringstream ss(s);
  for (std::string p; std::getline(ss, p, sep);)
    parts.push_back(p);
  return parts;
}

std::string size_text(const Row& r) {
  std::string s = std::to_string(r.integer("m")) + "x" + std::to_string(r.integer("n"));
  return r.integer("k") > 0 ? s + "x" + std::to_string(r.integer("k")) : s;
}

// problem = family/precision/size and application = variant plus the parameters after the size
// in the case id (family/variant/precision/size/params...); rows without a case id (schema 1)
// take the tile as their one parameter.
std::pair<std::string, std::string> problem_and_application(const Row& r) {
  const std::vector<std::string> id = split(r.case_id, '/');
  if (id.size() >= 4) {
    std::string app = id[1];
    for (std::size_t i = 4; i < id.size(); ++i)
      app += "/" + id[i];
    return {id[0] + "/" + id[2] + "/" + id[3], app};
  }
  std::string app = r.variant;
  if (r.integer("tile") > 0 && r.uses(Param::tile))
    app += "/tile=" + std::to_string(r.integer("tile"));
  return {r.family + "/" + r.precision + "/" + size_text(r), app};
}

bool failed(const Row& r) {
  return r.status == "error" || r.status == "invalid" || r.status == "unsupported" ||
         r.valid == "false";
}

std::string platform_of(const Run& run) {
  std::string p = run.backend.empty() ? "unknown backend" : run.backend;
  if (!run.device.empty())
    p += " on " + run.device;
  return p;
}

} // namespace

Portability performance_portability(const std::vector<Run>& runs, bool with_transfers) {
  Portability out;
  const auto platform_index = [&](const std::string& p) {
    return std::size_t(std::find(out.platforms.begin(), out.platforms.end(), p) -
                       out.platforms.begin());
  };
  std::vector<std::vector<std::string>> labels; // each platform's runs' labels, once each
  for (const auto& run : runs) {
    const std::size_t i = platform_index(platform_of(run));
    if (i == out.platforms.size()) {
      out.platforms.push_back(platform_of(run));
      labels.emplace_back();
    }
    if (std::find(labels[i].begin(), labels[i].end(), run.label()) == labels[i].end())
      labels[i].push_back(run.label());
  }
  for (const auto& l : labels)
    out.platform_labels.push_back(join(l, " + "));

  // The best (shortest) time of each application for each problem on each platform, over runs;
  // a failure counts only where no run of it succeeded there.
  using Key = std::tuple<std::string, std::string, std::size_t>; // problem, application, platform
  std::map<Key, PpEntry> best;
  for (const auto& run : runs) {
    const std::size_t platform = platform_index(platform_of(run));
    for (const auto& row : run.rows) {
      const auto [problem, app] = problem_and_application(row);
      const double time = with_transfers ? row.total_median : row.time_median;
      PpEntry e{problem, app, out.platforms[platform], time, 0, -1, failed(row) || !(time > 0)};
      if (!e.failed) {
        const double pct = references::pct_of_ceiling(row);
        e.arch_eff = with_transfers || pct < 0 ? -1 : pct / 100;
        if (e.arch_eff >= 0)
          e.ceiling_uncertain = row_ceiling_uncertain(row); // report/run_pooling.hpp
        e.marks = marks_of(row, run.host_cpus);
        if (e.arch_eff <
            0) // no ceiling of its own in this measure: its ceiling's marks do not count
          e.marks.disturbed = e.marks.uncertain = false;
      }
      auto [at, inserted] = best.emplace(Key{problem, app, platform}, e);
      if (!inserted && (at->second.failed || (!e.failed && e.fom < at->second.fom)))
        at->second = e;
    }
  }
  // The best time of each problem on each platform, across applications, and its row's marks.
  std::map<std::pair<std::string, std::size_t>, const PpEntry*> fastest;
  for (const auto& [key, e] : best) {
    if (e.failed)
      continue;
    auto [at, inserted] = fastest.emplace(std::pair{std::get<0>(key), std::get<2>(key)}, &e);
    if (!inserted && e.fom < at->second->fom)
      at->second = &e;
  }
  std::map<std::pair<std::string, std::string>, PpScore> scores;
  std::map<std::pair<std::string, std::string>, std::vector<double>> app_effs, arch_effs;
  for (auto& [key, e] : best) {
    if (!e.failed) {
      const PpEntry& f = *fastest.at({std::get<0>(key), std::get<2>(key)});
      e.app_eff = f.fom / e.fom;
      Marks time_marks = f.marks; // the time's marks, not its ceiling's: app_eff is of times
      time_marks.disturbed = time_marks.uncertain = false;
      e.marks |= time_marks;
    }
    out.entries.push_back(e);
    const auto pa = std::pair{e.problem, e.application};
    PpScore& s = scores[pa];
    s.problem = e.problem;
    s.application = e.application;
    s.platforms = out.platforms.size();
    ++s.ran;
    s.failed = s.failed || e.failed;
    s.marks |= e.marks;
    app_effs[pa].push_back(e.app_eff);
    arch_effs[pa].push_back(e.arch_eff);
  }
  std::map<std::string, std::size_t> applications; // of each problem
  for (const auto& [pa, s] : scores)
    ++applications[pa.first];
  for (auto& [pa, s] : scores) {
    s.applications = applications[pa.first];
    s.app_pp = harmonic_pp(app_effs[pa]);
    const auto& arch = arch_effs[pa];
    s.arch_pp = std::any_of(arch.begin(), arch.end(), [](double e) { return e < 0; })
                    ? -1
                    : harmonic_pp(arch);
    out.scores.push_back(s);
  }
  // Problems and applications in natural order (sizes as numbers: 128 before 1024), the
  // platforms as first met; the maps above held them in text order.
  const auto before = [](const std::string& pa, const std::string& aa, const std::string& pb,
                         const std::string& ab) {
    return natural_less(pa, pb) || (!natural_less(pb, pa) && natural_less(aa, ab));
  };
  std::stable_sort(out.entries.begin(), out.entries.end(), [&](const PpEntry& a, const PpEntry& b) {
    return before(a.problem, a.application, b.problem, b.application);
  });
  std::stable_sort(out.scores.begin(), out.scores.end(), [&](const PpScore& a, const PpScore& b) {
    return before(a.problem, a.application, b.problem, b.application);
  });
  return out;
}

const PpEntry* entry_of(const Portability& p, const PpScore& s, const std::string& platform) {
  const auto e = std::find_if(p.entries.begin(), p.entries.end(), [&](const PpEntry& x) {
    return x.problem == s.problem && x.application == s.application && x.platform == platform;
  });
  return e == p.entries.end() ? nullptr : &*e;
}

std::string portability_csv(const Portability& p) {
  std::ostringstream os;
  os << "problem,application,platform,fom,app eff,arch eff\n";
  for (const auto& e : p.entries) {
    const auto s = std::find_if(p.scores.begin(), p.scores.end(), [&](const PpScore& x) {
      return x.problem == e.problem && x.application == e.application;
    });
    const bool app_na = s != p.scores.end() && s->one_application(); // empty: not a number
    os << for_csv_cell(e.problem) << ',' << for_csv_cell(e.application) << ','
       << for_csv_cell(e.platform) << ',' << fmt("%.9g", e.fom) << ','
       << (app_na ? std::string() : fmt("%.6g", e.app_eff)) << ','
       << (e.arch_eff < 0 ? std::string() : fmt("%.6g", e.arch_eff)) << '\n';
  }
  return os.str();
}

std::string portability_markdown(const Portability& p) {
  std::ostringstream os;
  os << "# Performance portability\n\nPlatforms (H): ";
  for (std::size_t i = 0; i < p.platforms.size(); ++i)
    os << (i ? "; " : "") << markdown_cell(p.label(i))
       << (p.label(i) == p.platforms[i] ? "" : " (" + markdown_cell(p.platforms[i]) + ")");
  os << "\n\nPP = |H| / sum of 1/e over H (docs/compare.md). Application efficiency: the best time "
        "for the problem on the platform, across the applications and runs compared, over this "
        "time. Architectural efficiency: rate over the ceiling measured in the same run. PP needs "
        "two platforms and application efficiency two applications of the problem (with one, "
        "each is 1 by construction): n/a otherwise.\n\n"
        "| problem | application | PP (application eff.) | PP (architectural eff.) |";
  for (std::size_t i = 0; i < p.platforms.size(); ++i)
    os << " " << markdown_cell(p.label(i)) << " app / arch |";
  os << "\n|---|---|---|---|";
  for (std::size_t i = 0; i < p.platforms.size(); ++i)
    os << "---|";
  os << "\n";
  bool above_one = false;
  Marks shown;
  for (const auto& s : p.scores) {
    // A PP that is n/a is computed from nothing: no marks.
    const auto pp_marks = [&](const std::string& na) { return na.empty() ? s.marks : Marks{}; };
    shown |= pp_marks(s.app_na()) | pp_marks(s.arch_na());
    os << "| " << markdown_cell(s.problem) << " | " << markdown_cell(s.application) << " | "
       << s.app_text() << marks_text(pp_marks(s.app_na())) << " | " << s.arch_text()
       << marks_text(pp_marks(s.arch_na())) << " |";
    for (const auto& platform : p.platforms) {
      const PpEntry* e = entry_of(p, s, platform);
      if (!e)
        os << " not run |";
      else if (e->failed)
        os << " failed |";
      else {
        above_one = above_one || e->arch_eff > 1;
        os << " " << (s.one_application() ? std::string("n/a") : fmt("%.3f", e->app_eff)) << " / "
           << (e->arch_eff < 0 ? std::string("-") : fmt("%.3f", e->arch_eff))
           << (e->arch_eff > 1 ? " (>1)" : "")
           << (e->ceiling_uncertain.empty() ? "" : " (ceiling " + e->ceiling_uncertain + ")")
           << marks_text(e->marks) << " |";
        shown |= e->marks;
      }
    }
    os << "\n";
  }
  if (above_one)
    os << "\n(>1): a rate above the ceiling measured in its run, kept as measured: the ceiling is "
          "not this case's limit (docs/compare.md).\n";
  if (shown.any())
    os << "\n" << marks_legend(shown) << "\n";
  return os.str();
}

} // namespace compare
} // namespace miniapp
