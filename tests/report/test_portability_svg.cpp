// The report's performance-portability figures (report/portability_svg.hpp): the cascade sorts
// each application's platforms from the most to the least efficient and draws PP over the first
// k; the heat map has a cell per application and platform; text from results files is escaped.
#include "report/portability_svg.hpp"

#include <gtest/gtest.h>

#include <regex>

namespace miniapp {
namespace report {
namespace {

using compare::Portability;
using compare::PpEntry;
using compare::PpScore;

Portability three_platforms() {
  Portability p;
  p.platforms = {"openmp on CPU <A>", "cuda on H100", "hip on MI100"};
  // architectural efficiencies 0.3, 0.9, 0.6: the cascade's order is H100, MI100, CPU
  p.entries = {{"matmul/float32/256", "tiled", p.platforms[0], 3, 1, 0.3, false},
               {"matmul/float32/256", "tiled", p.platforms[1], 1, 1, 0.9, false},
               {"matmul/float32/256", "tiled", p.platforms[2], 2, 1, 0.6, false}};
  PpScore s;
  s.problem = "matmul/float32/256";
  s.application = "tiled";
  s.ran = s.platforms = 3;
  s.app_pp = 1;
  s.arch_pp = compare::harmonic_pp({0.9, 0.6, 0.3});
  p.scores = {s};
  return p;
}

// The y of each circle (a marker per platform), in drawing order.
std::vector<double> marker_ys(const std::string& svg) {
  std::vector<double> ys;
  const std::regex circle("<circle cx=\"[0-9.]+\" cy=\"([0-9.]+)\"");
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), circle); it != std::sregex_iterator();
       ++it)
    ys.push_back(std::stod((*it)[1]));
  return ys;
}

TEST(PortabilityFigures, CascadeSortsPlatformsAndDrawsPpSoFar) {
  const Portability p = three_platforms();
  const std::string svg = cascade_svg(p, "matmul/float32/256");
  EXPECT_EQ(svg.rfind("<svg", 0), 0u);
  EXPECT_NE(svg.find("architectural efficiency"), std::string::npos); // every row has a ceiling
  const auto ys = marker_ys(svg);
  ASSERT_EQ(ys.size(), 3u);
  EXPECT_LT(ys[0], ys[1]); // 0.9 above 0.6 above 0.3 (SVG's y grows downwards)
  EXPECT_LT(ys[1], ys[2]);
  // Under the plot: the platform at each position, by number (1-based, in run order): 2, 3, 1.
  const std::regex numbers(">([123])</text>");
  std::string order;
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), numbers);
       it != std::sregex_iterator(); ++it)
    order += (*it)[1];
  EXPECT_NE(order.find("231"), std::string::npos) << order;
  // The dashed line ends at the PP over all three: 0.4909 of the axis.
  EXPECT_NE(svg.find("stroke-dasharray"), std::string::npos);
  // Markup in a platform name is text.
  EXPECT_EQ(svg.find("<A>"), std::string::npos);
  EXPECT_NE(svg.find("CPU &lt;A&gt;"), std::string::npos);
  EXPECT_EQ(svg.find("<script"), std::string::npos);
}

TEST(PortabilityFigures, ApplicationEfficiencyWhereARowHasNoCeiling) {
  Portability p = three_platforms();
  p.entries[2].arch_eff = -1;
  const std::string svg = cascade_svg(p, "matmul/float32/256");
  EXPECT_NE(svg.find("application efficiency"), std::string::npos);
  EXPECT_EQ(svg.find("architectural efficiency"), std::string::npos);
}

TEST(PortabilityFigures, HeatMapHasACellPerPlatformAndThePp) {
  Portability p = three_platforms();
  p.entries[0].failed = true;
  p.scores[0].failed = true;
  const std::string svg = efficiency_heat_map_svg(p);
  // One application: its application efficiency is 1 by construction, so n/a (issue 41).
  EXPECT_NE(svg.find(">0.90 (n/a)</text>"), std::string::npos) << svg;
  EXPECT_NE(svg.find(">0.60 (n/a)</text>"), std::string::npos);
  EXPECT_NE(svg.find(">failed</text>"), std::string::npos);
  EXPECT_NE(svg.find(">0 (failed on a platform)</text>"), std::string::npos);
  EXPECT_EQ(svg.find("<A>"), std::string::npos);
  // A platform that did not run it.
  p.entries.pop_back();
  p.scores[0].failed = false;
  p.scores[0].ran = 2;
  EXPECT_NE(efficiency_heat_map_svg(p).find(">not run</text>"), std::string::npos);
}

// Issue 41: the heat map cut its headers ("Pro~ on NVIDIA...") and PP texts; they are wrapped
// whole instead, and a one-application PP is n/a with its reason.
TEST(PortabilityFigures, HeatMapHeadersAndPpTextsAreWholeAndNa) {
  Portability p = three_platforms();
  p.platform_labels = {"Production run of the new tiling on the CPU node", "cuda on H100",
                       "hip on MI100"};
  p.scores[0].applications = 1;
  p.scores[0].ran = 2;
  const std::string svg = efficiency_heat_map_svg(p);
  EXPECT_EQ(svg.find('~'), std::string::npos) << svg;
  for (const char* line : {">Production run of the<", ">new tiling on the CPU<", ">node<",
                           ">n/a: one application for<", ">the problem<", ">incomplete 2/3 (0.491<",
                           ">over those)<", ">0.90 (n/a)<"})
    EXPECT_NE(svg.find(line), std::string::npos) << line << "\n" << svg;
}

// A platform's cell with three marks takes more lines than any PP text: its row grows to hold
// them (a loaded paper_table1 report cut "(uncertain ceiling)" at the cell's edge).
TEST(PortabilityFigures, HeatMapRowsHoldEveryLineOfAMarkedCell) {
  Portability p = three_platforms();
  p.entries[0].marks = Marks{true, true, true};
  const std::string svg = efficiency_heat_map_svg(p);
  const std::size_t cell = svg.find("class=\"marked\"");
  ASSERT_NE(cell, std::string::npos) << svg;
  std::smatch m;
  const std::string rect = svg.substr(svg.rfind("<rect", cell), cell - svg.rfind("<rect", cell));
  ASSERT_TRUE(std::regex_search(
      rect, m, std::regex("y=\"([0-9.]+)\" width=\"[0-9.]+\" height=\"([0-9.]+)\"")));
  const double bottom = std::stod(m[1]) + std::stod(m[2]);
  const std::string after = svg.substr(cell, svg.find("<rect", cell) - cell);
  const std::regex y_of("<text x=\"[0-9.]+\" y=\"([0-9.]+)\"[^>]*>([^<]*)</text>");
  std::string lines;
  for (auto it = std::sregex_iterator(after.begin(), after.end(), y_of);
       it != std::sregex_iterator(); ++it) {
    lines += (*it)[2].str() + " ";
    EXPECT_LE(std::stod((*it)[1]), bottom) << (*it)[2] << " below its cell\n" << svg;
  }
  EXPECT_NE(lines.find("(uncertain"), std::string::npos) << lines;
  EXPECT_NE(lines.find("ceiling)"), std::string::npos) << lines;
}

// The captions sit above their figures; a section over one platform has no PP figures, and says
// why.
TEST(PortabilityFigures, CaptionsAboveAndNoFiguresForOnePlatform) {
  Portability p = three_platforms();
  const std::string html = portability_section(p);
  EXPECT_NE(html.find("<figure class=\"plot\" id=\"pp-heat-map\"><figcaption>efficiency heat "
                      "map</figcaption><svg"),
            std::string::npos)
      << html;
  EXPECT_NE(html.find("<figure class=\"plot cascade\"><figcaption>cascade: "
                      "matmul/float32/256</figcaption><svg"),
            std::string::npos)
      << html;
  p.platforms.resize(1);
  p.entries.resize(1);
  p.scores[0].ran = p.scores[0].platforms = 1;
  const std::string one = portability_section(p);
  EXPECT_EQ(one.find("<svg"), std::string::npos) << one;
  EXPECT_NE(one.find("PP: n/a: one platform (openmp on CPU &lt;A&gt;)"), std::string::npos) << one;
}

TEST(PortabilityFigures, SectionHasAHeatMapAndACascadePerProblem) {
  Portability p = three_platforms();
  for (int i = 0; i < int(kMaxCascades) + 2; ++i) {
    p.entries.push_back(p.entries[0]);
    p.entries.back().problem = "axpby/float32/" + std::to_string(1000 + i);
    p.scores.push_back(p.scores[0]);
    p.scores.back().problem = p.entries.back().problem;
  }
  const std::string html = portability_section(p);
  std::size_t cascades = 0;
  for (auto at = html.find("class=\"plot cascade\""); at != std::string::npos;
       at = html.find("class=\"plot cascade\"", at + 1))
    ++cascades;
  EXPECT_EQ(cascades, kMaxCascades);
  EXPECT_NE(html.find("id=\"pp-heat-map\""), std::string::npos);
  EXPECT_NE(html.find("3 more problems"), std::string::npos) << html.substr(html.size() - 300);
}

} // namespace
} // namespace report
} // namespace miniapp
