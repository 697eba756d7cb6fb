#pragma once
// Performance portability over the compared runs (`miniapp compare --table portability`, the
// report): the metric of Pennycook, Sewall and Lee ("Implications of a metric for performance
// portability", FGCS 2019), with the terms of Intel's P3 Analysis Library:
//   platform     a run's backend and device ("cuda on NVIDIA H100");
//   problem      what is computed: family, precision and size ("matmul/float32/1024x1024x1024");
//   application  the code that computes it: variant and its parameters ("tiled_rb/tile=128");
//   architectural efficiency  rate over the ceiling measured in the same run (the case's level);
//   application efficiency    the best time for the problem on the platform, across the compared
//                             applications and runs, over this application's time there;
//   PP = |H| / sum over H of 1/e_i, H the platforms of the compared runs: 0 when the application
//   failed (or is unsupported) on one of them, "incomplete k/|H|" when it did not run on all.
// PP needs two platforms and application efficiency two applications of the problem: with one,
// each is 1 by construction, so it is given as "n/a" with the reason instead.
// Efficiencies above 1 (a rate above its ceiling) are kept as they are and flagged, never clipped.
// docs/compare.md defines each number.
#include "compare/compare.hpp"

#include <string>
#include <vector>

namespace miniapp {
namespace compare {

// |H| / sum(1/e): the harmonic mean of the efficiencies; 0 when one is 0 or below (a failure) or
// the list is empty.
double harmonic_pp(const std::vector<double>& efficiencies);

// One application's best result for one problem on one platform.
struct PpEntry {
  std::string problem, application, platform;
  double fom = 0;       // the figure of merit: the median time in seconds (lower is better)
  double app_eff = 0;   // application efficiency (0 when failed)
  double arch_eff = -1; // architectural efficiency; < 0 when the row has no ceiling in its unit
  bool failed = false;  // status error, invalid or unsupported on this platform
  // "uncertain LOW-HIGH UNIT" where arch_eff is of an uncertain ceiling (run/ceilings.hpp); "".
  std::string ceiling_uncertain;
  // The row's marks (core/marks.hpp) and those of the fastest row of the problem on the platform,
  // which its application efficiency is a ratio to.
  Marks marks;
};

// PP of one application for one problem over the platform set.
struct PpScore {
  std::string problem, application;
  std::size_t ran = 0, platforms = 0; // platforms with an entry, of all compared
  std::size_t applications = 0;       // applications of the problem, over every platform
  bool failed = false;                // failed on a platform: PP is 0
  double app_pp = 0;                  // over the platforms that ran it
  double arch_pp = -1;                // < 0 where an architectural efficiency is missing
  Marks marks; // of every entry it is computed from (an uncertain ceiling's among them)
  bool complete() const { return ran == platforms; }
  // "0.600", "0 (failed on a platform)", "incomplete 2/3 (0.750 over those)"
  std::string text(double pp) const;
  // Why a PP means nothing here ("n/a: one platform", "n/a: one application for the problem");
  // "" where it means something. The application efficiency of each platform is n/a too where
  // app_na() names the one application.
  std::string app_na() const;
  std::string arch_na() const;
  bool one_application() const { return applications < 2; }
  // text() of the PP, or the reason it is n/a.
  std::string app_text() const;
  std::string arch_text() const;
};

struct Portability {
  std::vector<std::string> platforms; // in the order of the runs
  // Each platform's runs by their labels (--name, --label; joined by " + "): what headers show.
  std::vector<std::string> platform_labels;
  std::vector<PpEntry> entries; // problem, application, then platform order
  std::vector<PpScore> scores;  // problem, then application order
  // platform_labels[i], or the platform where there are no labels.
  const std::string& label(std::size_t i) const;
};

// The entry of one score's problem and application on `platform`; null where it did not run there.
const PpEntry* entry_of(const Portability& p, const PpScore& s, const std::string& platform);

// with_transfers: times include the copies (total_median_s), as compare --with-transfers.
Portability performance_portability(const std::vector<Run>& runs, bool with_transfers);

// The P3 library's columns: problem, application, platform, fom, app eff, arch eff.
std::string portability_csv(const Portability& p);
std::string portability_markdown(const Portability& p);

} // namespace compare
} // namespace miniapp
