// The HTML report (report/html_report.hpp): escaping of every text from results files, the
// metadata highlights, the reproduce command, the SVG filter and the marks compare computed.
// The rendered page itself is checked in headless Chromium (tests/report/check_report.py).
#include "report/html_report.hpp"
#include "results/run_json.hpp"
#include "report/scaling.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace miniapp {
namespace report {
namespace {

// An axpby row of n x n with these repetition times (seconds).
nlohmann::json row(int n, const std::vector<double>& times, const std::string& variant = "flat") {
  const double bytes = 12.0 * n * n, med = times[times.size() / 2];
  return {{"family", "axpby"},
          {"variant", variant},
          {"precision", "float32"},
          {"m", n},
          {"n", n},
          {"k", 0},
          {"alpha", 2.0},
          {"beta", 0.5},
          {"seed", 42},
          {"repetitions", int(times.size())},
          {"status", "ok"},
          {"valid", true},
          {"time_min_s", times.front()},
          {"time_median_s", med},
          {"time_max_s", times.back()},
          {"total_median_s", med},
          {"bytes", bytes},
          {"gbs", bytes / med / 1e9},
          {"compute_times_s", times}};
}

compare::Run run(const std::string& backend, const std::string& device, nlohmann::json rows,
                 nlohmann::json extra = nlohmann::json::object()) {
  nlohmann::json meta = {{"backend", backend},   {"device_name", device},   {"host_name", "node1"},
                         {"config_hash", "abc"}, {"kokkos_version", "4.3"}, {"mpi_ranks", 1}};
  meta.update(extra);
  return compare::run_from_json({{"metadata", meta}, {"results", rows}}, backend + "-run");
}

TEST(HtmlReport, EscapesEveryMarkupCharacter) {
  EXPECT_EQ(html_escape("<a href=\"x\" title='y'>&amp;</a>"),
            "&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;amp;&lt;/a&gt;");
  EXPECT_EQ(html_escape("plain text 1.5 GB/s"), "plain text 1.5 GB/s");
}

TEST(HtmlReport, TextFromResultsFilesNeverBecomesMarkup) {
  const std::string evil = "<script>alert(1)</script>";
  const std::vector<compare::Run> runs = {
      run("openmp", "cpu", {row(64, {1e-3, 1e-3, 1e-3})}),
      run("cuda", evil, {row(64, {1e-4, 1e-4, 1e-4}, "<img src=x onerror=alert(2)>")},
          {{"label", "\"><b>label</b>"}, {"compiler", "</td></tr></table><h1>x"}})};
  const auto c = compare::compare_runs(runs, {});
  ReportOptions opt;
  opt.title = "<title>";
  const std::string page = html_report(c, runs, opt);
  EXPECT_EQ(page.find("<script"), std::string::npos);
  EXPECT_EQ(page.find("<img"), std::string::npos);
  EXPECT_EQ(page.find("<b>label"), std::string::npos);
  EXPECT_EQ(page.find("</table><h1>"), std::string::npos);
  EXPECT_NE(page.find("&lt;script&gt;alert(1)&lt;/script&gt;"), std::string::npos);
  EXPECT_NE(page.find("&quot;&gt;&lt;b&gt;label&lt;/b&gt;"), std::string::npos);
  EXPECT_NE(page.find("<title>&lt;title&gt;</title>"), std::string::npos);
}

TEST(HtmlReport, HighlightsWhatDiffersFromTheBaseline) {
  const std::vector<compare::Run> runs = {
      run("openmp", "AMD EPYC", {row(64, {1e-3, 1e-3, 1e-3})}),
      run("cuda", "NVIDIA H200", {row(64, {1e-4, 1e-4, 1e-4})}, {{"kokkos_version", ""}})};
  const auto rows = metadata_rows(compare::compare_runs(runs, {}), runs);
  const auto find = [&](const std::string& name) {
    for (const auto& r : rows)
      if (r.name == name)
        return r;
    ADD_FAILURE() << "no metadata row " << name;
    return MetadataRow{};
  };
  EXPECT_EQ(find("backend").values, (std::vector<std::string>{"openmp", "cuda"}));
  EXPECT_EQ(find("backend").differs, (std::vector<bool>{false, true}));
  EXPECT_EQ(find("device").differs, (std::vector<bool>{false, true}));
  EXPECT_EQ(find("host").differs, (std::vector<bool>{false, false}));
  EXPECT_EQ(find("config hash").differs, (std::vector<bool>{false, false}));
  // Unknown is not a difference; the source path always differs and is no finding.
  EXPECT_EQ(find("Kokkos").values, (std::vector<std::string>{"4.3", ""}));
  EXPECT_EQ(find("Kokkos").differs, (std::vector<bool>{false, false}));
  EXPECT_EQ(find("source").differs, (std::vector<bool>{false, false}));
  EXPECT_EQ(find("cases").values, (std::vector<std::string>{"1 (1 valid)", "1 (1 valid)"}));

  // With run 2 as the baseline the highlight moves to run 1.
  compare::Options opt;
  opt.baseline = 1;
  const auto swapped = metadata_rows(compare::compare_runs(runs, opt), runs);
  EXPECT_EQ(swapped[1].name, "backend");
  EXPECT_EQ(swapped[1].differs, (std::vector<bool>{true, false}));

  const std::string page = html_report(compare::compare_runs(runs, {}), runs, {});
  EXPECT_NE(page.find("<td class=\"differs\">cuda</td>"), std::string::npos);
  EXPECT_NE(page.find("<td>openmp</td>"), std::string::npos);
}

TEST(HtmlReport, ShowsTheMarksCompareComputed) {
  // 8 repetitions each: 2x faster with no overlap is significant; 1.0x with the same times is not.
  const std::vector<double> slow = {2e-3, 2.1e-3, 2.2e-3, 2.3e-3, 2.4e-3, 2.5e-3, 2.6e-3, 2.7e-3};
  const std::vector<double> fast = {1e-3,   1.05e-3, 1.1e-3, 1.15e-3,
                                    1.2e-3, 1.25e-3, 1.3e-3, 1.35e-3};
  const std::vector<compare::Run> runs = {run("openmp", "cpu", {row(64, slow), row(128, slow)}),
                                          run("cuda", "gpu", {row(64, fast), row(128, slow)})};
  const auto c = compare::compare_runs(runs, {});
  ASSERT_FALSE(c.lines[0].cells[1].within_noise);
  ASSERT_TRUE(c.lines[1].cells[1].within_noise);
  const std::string page = html_report(c, runs, {});
  const auto p_text = [](double p) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "(p %.2g)", p);
    return std::string(buf);
  };
  // One round a side: the repetitions differ, the run-to-run spread is unknown: `?`, uncoloured.
  EXPECT_NE(page.find("<td class=\"num noise\">2.00x ? <span class=\"range\">" +
                      p_text(c.lines[0].cells[1].p_value)),
            std::string::npos)
      << page;
  EXPECT_NE(page.find("<td class=\"num noise\">1.00x ~ <span class=\"range\">" +
                      p_text(c.lines[1].cells[1].p_value)),
            std::string::npos);
  // Two cases, two rows.
  std::size_t rows = 0;
  for (auto at = page.find("<tr class=\"case\">"); at != std::string::npos;
       at = page.find("<tr class=\"case\">", at + 1))
    ++rows;
  EXPECT_EQ(rows, 2u);
  // The headers name the measure the numbers are (docs/compare.md, "Measures").
  EXPECT_NE(page.find(">kernel ratio<br>run 2 / run 1</th>"), std::string::npos);
  EXPECT_NE(page.find("<th>kernel rate</th>"), std::string::npos);
  compare::Options opt;
  opt.with_transfers = true;
  const std::string e2e = html_report(compare::compare_runs(runs, opt), runs, {});
  EXPECT_NE(e2e.find(">end-to-end ratio<br>run 2 / run 1</th>"), std::string::npos);
  EXPECT_NE(e2e.find("Measure: end-to-end, from the median total time"), std::string::npos);

  // Three rounds a side: the test across runs decides, and a difference is coloured.
  auto with_rounds = [](nlohmann::json r, std::vector<double> rounds) {
    r["round_medians_s"] = rounds;
    return r;
  };
  const std::vector<compare::Run> rounds = {
      run("openmp", "cpu", {with_rounds(row(64, slow), {2.3e-3, 2.35e-3, 2.4e-3})}),
      run("cuda", "gpu", {with_rounds(row(64, fast), {1.15e-3, 1.2e-3, 1.18e-3})})};
  const auto r = compare::compare_runs(rounds, {});
  // The spread of the rounds beside each time: 0.05 / 2.35 ms.
  EXPECT_NE(html_report(r, rounds, {}).find(" cv 2.1% (3 rounds)</span>"), std::string::npos);
  EXPECT_NE(html_report(r, rounds, {})
                .find("<td class=\"num faster\">2.00x * <span class=\"range\">" +
                      p_text(r.lines[0].cells[1].p_value)),
            std::string::npos);
}

// The energy table beside the rates: a run's watts and rate per watt, "-" with the run's reason
// where it has none (no counter; a file from before energy was recorded), escaped; no table where
// no run recorded energy.
TEST(HtmlReport, EnergyTableGivesWattsAndWhyACellIsEmpty) {
  auto gpu = row(64, {1e-4, 1e-4, 1e-4});
  gpu["power_w"] = 412.0;
  gpu["rate_per_watt"] = 0.123;
  gpu["rate_per_watt_unit"] = "GB/s/W";
  auto cpu = row(64, {1e-3, 1e-3, 1e-3});
  cpu["energy_note"] = "no energy counter: <no powercap>";
  const std::vector<compare::Run> runs = {run("openmp", "cpu", {cpu}), run("cuda", "gpu", {gpu}),
                                          run("cuda", "older gpu", {row(64, {2e-4, 2e-4, 2e-4})})};
  const std::string page = html_report(compare::compare_runs(runs, {}), runs, {});
  EXPECT_NE(page.find("<table id=\"energy\">"), std::string::npos);
  EXPECT_NE(page.find("<td class=\"num\">412 W, 0.123 GB/s/W</td>"), std::string::npos) << page;
  EXPECT_NE(page.find("Run 1, not measured: no energy counter: &lt;no powercap&gt;"),
            std::string::npos)
      << page;
  EXPECT_NE(page.find("Run 3, not measured: no energy fields (a results file written before "
                      "miniapp recorded energy)"),
            std::string::npos)
      << page;
  EXPECT_EQ(page.find("Run 2, not measured"), std::string::npos);
  const std::vector<compare::Run> older = {run("openmp", "cpu", {row(64, {1e-3, 1e-3, 1e-3})}),
                                           run("cuda", "gpu", {row(64, {1e-4, 1e-4, 1e-4})})};
  EXPECT_EQ(html_report(compare::compare_runs(older, {}), older, {}).find("id=\"energy\""),
            std::string::npos);
}

TEST(HtmlReport, ReproduceCommandQuotesWordsAndKeepsTheEnvironmentThatMatters) {
  const auto r =
      run("openmp", "cpu", {row(64, {1e-3, 1e-3, 1e-3})},
          {{"argv", {"bin/miniapp", "run", "my configs/a.yaml", "--set", "name=it's", "--quiet"}},
           {"environment",
            {{"OMP_NUM_THREADS", "16"},
             {"OMP_PLACES", "{0:8}"},
             {"SLURM_JOB_ID", "77"},
             {"KOKKOS_BAD NAME", "x"}}},
           {"config_path", "/home/u/my configs/a.yaml"}});
  EXPECT_EQ(reproduce_command(r), "OMP_NUM_THREADS=16 OMP_PLACES='{0:8}' bin/miniapp run "
                                  "'my configs/a.yaml' --set 'name=it'\\''s' --quiet");
  // Without argv: rebuilt from the config path and the --set list.
  const auto older = run("openmp", "cpu", {row(64, {1e-3, 1e-3, 1e-3})},
                         {{"config_path", "/c/x.yaml"}, {"overrides", {"repetitions=5"}}});
  EXPECT_EQ(reproduce_command(older), "miniapp run /c/x.yaml --set repetitions=5");
  EXPECT_EQ(reproduce_command(run("openmp", "cpu", {row(64, {1e-3, 1e-3, 1e-3})})), "");

  const std::vector<compare::Run> runs = {r};
  const std::string page = html_report(compare::compare_runs(runs, {}), runs, {});
  EXPECT_NE(page.find("<code>OMP_NUM_THREADS=16 OMP_PLACES=&#39;{0:8}&#39; bin/miniapp run "
                      "&#39;my configs/a.yaml&#39;"),
            std::string::npos);
}

TEST(HtmlReport, InlinesOnlyInertSvg) {
  const std::string svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"10pt\">"
                          "<!-- only text --><path d=\"M 0 0\"/></svg>";
  EXPECT_EQ(inline_svg("<?xml version=\"1.0\"?>\n<!DOCTYPE svg PUBLIC \"-//W3C//DTD SVG 1.1//EN\" "
                       "\"http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd\">\n" +
                       svg + "\n"),
            svg);
  EXPECT_EQ(inline_svg("<svg><script>alert(1)</script></svg>"), "");
  EXPECT_EQ(inline_svg("<svg><g onload =\"alert(1)\"/></svg>"), "");
  EXPECT_EQ(inline_svg("<svg><foreignObject><div/></foreignObject></svg>"), "");
  EXPECT_EQ(inline_svg("<svg><a href=\"javascript:alert(1)\">x</a></svg>"), "");
  EXPECT_EQ(inline_svg("not an svg"), "");

  ReportOptions opt;
  opt.plots = {{"rate-<x>", svg}};
  const std::vector<compare::Run> runs = {run("openmp", "cpu", {row(64, {1e-3, 1e-3, 1e-3})})};
  const std::string page = html_report(compare::compare_runs(runs, {}), runs, opt);
  // The caption above its figure (issue 41: below, it read as the next figure's title).
  EXPECT_NE(page.find("<figure class=\"plot\"><figcaption>rate-&lt;x&gt;</figcaption>" + svg),
            std::string::npos);
}

// The plot script gets the runs back as results.json: read again, they are the same runs.
TEST(HtmlReport, RunsWrittenForThePlotScriptReadBackTheSame) {
  const auto r = run("cuda", "H200", {row(64, {1e-4, 2e-4, 3e-4}), row(128, {1e-3, 2e-3, 4e-3})},
                     {{"label", "gpu run"}, {"threads_per_rank", 8}});
  const auto back = compare::run_from_json(compare::to_results_json(r), "back");
  EXPECT_EQ(back.label(), "gpu run");
  EXPECT_EQ(back.shape(), "1x8");
  EXPECT_EQ(back.metadata, r.metadata);
  ASSERT_EQ(back.rows.size(), 2u);
  for (std::size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(back.rows[i].integer("n"), r.rows[i].integer("n"));
    EXPECT_EQ(back.rows[i].valid, "true");
    EXPECT_EQ(back.rows[i].gbs, r.rows[i].gbs);
    EXPECT_EQ(back.rows[i].time_median, r.rows[i].time_median);
    EXPECT_EQ(back.rows[i].compute_times, r.rows[i].compute_times);
  }
  // A run from a results.csv alone has no metadata: the label and backend come from the Run.
  const auto csv = compare::run_from_csv("family,variant,precision,m,n,backend,valid,gbs\n"
                                         "axpby,flat,float32,64,64,openmp,not_checked,5\n",
                                         "r.csv");
  const auto doc = compare::to_results_json(csv);
  EXPECT_EQ(doc["metadata"]["backend"], "openmp");
  EXPECT_EQ(doc["metadata"]["label"], csv.label());
  EXPECT_EQ(doc["results"][0]["valid"], "not_checked");
}

TEST(Scaling, EfficiencyAgainstEachSystemsFewestRanks) {
  const auto at = [](int n, double t) {
    nlohmann::json r = row(n, {t, t, t});
    r["case_id"] = "axpby/flat/float32/" + std::to_string(n) + "x" + std::to_string(n);
    return run("openmp", "cpu", {r});
  };
  // System a: 1, 2 and 4 ranks; system b starts at 2 ranks (its own base).
  const std::vector<ScalingPoint> pts = {{"a", 1, 1, at(64, 4.0)},
                                         {"a", 1, 2, at(64, 2.5)},
                                         {"a", 2, 4, at(64, 1.0)},
                                         {"b", 1, 2, at(64, 3.0)},
                                         {"b", 1, 4, at(64, 3.0)}};
  const auto strong = scaling_rows(pts, false);
  ASSERT_EQ(strong.size(), 5u);
  const std::vector<double> want_strong = {1.0, 4.0 / (2.5 * 2), 4.0 / (1.0 * 4), 1.0,
                                           (3.0 * 2) / (3.0 * 4)};
  for (std::size_t i = 0; i < strong.size(); ++i)
    EXPECT_NEAR(strong[i].efficiency, want_strong[i], 1e-12) << i;
  EXPECT_EQ(strong[2].nodes, 2);
  EXPECT_EQ(strong[2].ranks_per_node, 2);
  // The table names each point's nodes and ranks per node (a study's point is nodes x ranks per
  // node), then the ranks: 2 nodes x 2 = 4 ranks.
  const std::string html = scaling_section(pts, false);
  EXPECT_NE(html.find("<th>nodes</th><th>ranks per node</th><th>ranks</th>"), std::string::npos)
      << html;
  EXPECT_NE(html.find("<td>2</td><td>2</td><td>4</td>"), std::string::npos) << html;
  // Weak: the block per rank stays, so the time should: E = T_1 / T. A weak point's sizes grow
  // with the grid, yet its case is the same (matched by position, labelled at the fewest ranks).
  const std::vector<ScalingPoint> weak_pts = {{"a", 1, 1, at(64, 2.0)}, {"a", 1, 2, at(128, 2.5)}};
  const auto weak = scaling_rows(weak_pts, true);
  ASSERT_EQ(weak.size(), 2u);
  EXPECT_NEAR(weak[1].efficiency, 2.0 / 2.5, 1e-12);
  EXPECT_EQ(weak[0].case_label, weak[1].case_label);
  EXPECT_NE(weak[1].case_label.find("64x64"), std::string::npos) << weak[1].case_label;
}

// Strong scaling is judged by the resource scaled: 1 rank x 2 threads and 2 ranks x 1 thread are
// the same 2 cores (efficiency T1/T, not T1/(2T) as when ranks were the resource); a GPU study's
// resource is its GPUs. The table and its header say which.
TEST(Scaling, StrongEfficiencyByTheResourceScaled) {
  const auto host = [](int threads, double t) {
    return run("openmp", "cpu", {row(64, {t, t, t})}, {{"threads_per_rank", threads}});
  };
  const std::vector<ScalingPoint> cores = {
      {"a", 1, 1, host(2, 2.0)}, {"a", 1, 2, host(1, 2.0)}, {"a", 1, 4, host(1, 1.0)}};
  const auto rows = scaling_rows(cores, false);
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_DOUBLE_EQ(rows[0].resource, 2);
  EXPECT_DOUBLE_EQ(rows[1].resource, 2);
  EXPECT_NEAR(rows[1].efficiency, 1.0, 1e-12); // the same 2 cores, the same time
  EXPECT_NEAR(rows[2].efficiency, (2.0 * 2) / (1.0 * 4), 1e-12);
  const std::string html = scaling_section(cores, false);
  EXPECT_NE(html.find("<th>efficiency by ranks x threads</th>"), std::string::npos) << html;
  EXPECT_NE(html.find("<td>1 x 2 = 2</td>"), std::string::npos) << html;
  const auto gpu = [](int devices, double t) {
    return run("cuda", "H100", {row(64, {t, t, t})}, {{"devices_per_rank", devices}});
  };
  const auto g = scaling_rows({{"g", 1, 1, gpu(1, 4.0)}, {"g", 1, 2, gpu(2, 1.0)}}, false);
  ASSERT_EQ(g.size(), 2u);
  EXPECT_DOUBLE_EQ(g[1].resource, 4);
  EXPECT_NEAR(g[1].efficiency, 4.0 / (1.0 * 4), 1e-12);
  EXPECT_EQ(scaled_resource(g), "GPUs");
  EXPECT_NE(scaling_section({{"g", 1, 1, gpu(1, 4.0)}, {"g", 1, 2, gpu(2, 1.0)}}, false)
                .find("<td>4 GPUs</td>"),
            std::string::npos);
}

// A point measured while its host was busy (load above its CPUs, core/host_load.hpp) is marked
// (busy) in the scaling table, as the comparison marks it, its efficiency too (a ratio to the
// base point's time), and the legend says what that means; the figure rings it. Issue 41: a
// disturbed point alike.
TEST(Scaling, PointsMeasuredOnABusyHostAreMarkedBusy) {
  const auto at = [](double t, double load, bool disturbed = false) {
    nlohmann::json r = row(64, {t, t, t});
    r["host_load"] = load;
    r["ceiling_disturbed"] = disturbed;
    return run("openmp", "cpu", {r}, {{"host_cpus", 2}});
  };
  const std::vector<ScalingPoint> pts = {{"a", 1, 1, at(2.0, 0.5)}, {"a", 1, 2, at(1.0, 5.0)}};
  const auto rows = scaling_rows(pts, false);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_FALSE(rows[0].marks.busy);
  EXPECT_FALSE(rows[0].efficiency_marks.any());
  EXPECT_TRUE(rows[1].marks.busy);
  EXPECT_TRUE(rows[1].efficiency_marks.busy);
  const std::string html = scaling_section(pts, false);
  const auto table_row = [&](const std::string& ranks) {
    const std::size_t at_ = html.find("</td><td>" + ranks + "</td><td>");
    return at_ == std::string::npos ? std::string()
                                    : html.substr(html.rfind("<tr", at_),
                                                  html.find("</tr>", at_) - html.rfind("<tr", at_));
  };
  const std::string two = table_row("2"), one = table_row("1");
  ASSERT_FALSE(two.empty()) << html;
  ASSERT_FALSE(one.empty()) << html;
  EXPECT_NE(two.find("(busy)</span></td><td>1.00 <span"), std::string::npos) << two;
  EXPECT_EQ(one.find("busy"), std::string::npos) << one;
  EXPECT_NE(html.find("other work took more than a quarter of a CPU beside the case"),
            std::string::npos);
  EXPECT_NE(html.find("ringed: marked busy"), std::string::npos) << html;
  std::size_t rings = 0;
  for (std::size_t at_ = html.find("class=\"marked\""); at_ != std::string::npos;
       at_ = html.find("class=\"marked\"", at_ + 1))
    ++rings;
  EXPECT_EQ(rings, 2u) << "the busy point's time and efficiency";
  // No busy point: no mark and no legend for it.
  const std::string calm = scaling_section({{"a", 1, 1, at(2.0, 0.5)}}, false);
  EXPECT_EQ(calm.find("busy"), std::string::npos) << calm;
  EXPECT_EQ(calm.find("ringed"), std::string::npos) << calm;
  // A disturbed base point marks every efficiency computed from it.
  const auto disturbed =
      scaling_rows({{"a", 1, 1, at(2.0, 0.5, true)}, {"a", 1, 2, at(1.0, 0.5)}}, false);
  ASSERT_EQ(disturbed.size(), 2u);
  EXPECT_FALSE(disturbed[1].marks.any());
  EXPECT_TRUE(disturbed[1].efficiency_marks.disturbed);
}

TEST(Scaling, SectionDrawsALinePerSystemAndCaseAndEscapesNames) {
  const auto at = [](double t) { return run("openmp", "cpu", {row(64, {t, t, t})}); };
  const std::vector<ScalingPoint> pts = {
      {"<b>x</b>", 1, 1, at(2.0)}, {"<b>x</b>", 1, 2, at(1.0)}, {"y", 1, 1, at(2.0)}};
  const std::string html = scaling_section(pts, false);
  std::size_t lines = 0;
  for (std::size_t at_ = html.find("class=\"series\""); at_ != std::string::npos;
       at_ = html.find("class=\"series\"", at_ + 1))
    ++lines;
  EXPECT_EQ(lines, 4u); // 2 series (x, y) in each of the 2 panels
  EXPECT_EQ(html.find("<b>x"), std::string::npos);
  EXPECT_NE(html.find("&lt;b&gt;x"), std::string::npos);
  EXPECT_NE(html.find("id=\"scaling-plot\""), std::string::npos);
  EXPECT_NE(scaling_section({}, true).find("No point has valid results yet"), std::string::npos);
}

// issue 42: a point of 2^30 ranks (an edited study state) made the axis loop's int wrap to 0 and
// double for ever; one of 0 ranks gave an efficiency of -nan.
TEST(Scaling, RankCountsAtTheEdgesEndTheAxisAndGiveNoNan) {
  const auto at = [](double t) { return run("openmp", "cpu", {row(64, {t, t, t})}); };
  const std::vector<ScalingPoint> huge = {{"a", 1, 1, at(2.0)}, {"a", 1 << 30, 1 << 30, at(1.0)}};
  const std::string html = scaling_section(huge, false);
  EXPECT_LT(html.size(), 100000u);
  EXPECT_NE(html.find(">1073741824</text>"), std::string::npos) << "the axis reaches 2^30";
  const auto rows = scaling_rows({{"a", 0, 0, at(2.0)}, {"a", 1, 2, at(1.0)}}, false);
  ASSERT_EQ(rows.size(), 1u) << "the point of 0 ranks is left out";
  EXPECT_DOUBLE_EQ(rows[0].efficiency, 1.0);
}

} // namespace
} // namespace report
} // namespace miniapp
