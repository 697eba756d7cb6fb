// Job-script rendering (jobs/jobscript.hpp): one pass that never rescans substituted text, shell
// quoting, Slurm time ranges and the rank layout (issue 15 item 6, issue 16 item 2).
#include "config/yaml_strict.hpp"
#include "jobs/jobscript.hpp"

#include <gtest/gtest.h>

namespace miniapp::jobs {
namespace {

TEST(Jobscript, RendersInOnePassWithoutRescanningValues) {
  // A value that holds a placeholder stays as it is: it is never filled in a second time.
  const std::string out =
      render_template("a=@@A@@ b=@@B@@\n#@@LINES@@\nend\n", "t.sh", {{"A", "@@B@@"}, {"B", "x@@y"}},
                      {{"LINES", {"one @@A@@", "two"}}});
  EXPECT_EQ(out, "a=@@B@@ b=x@@y\none @@A@@\ntwo\nend\n");
}

TEST(Jobscript, UnknownOrOpenPlaceholdersAreConfigErrorsWithTheirPosition) {
  try {
    render_template("ok\nx @@NOPE@@\n", "site.sh", {}, {});
    FAIL() << "no error";
  } catch (const config::ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("site.sh:2:3: unknown placeholder @@NOPE@@"),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW(render_template("x @@A\n@@\n", "t", {{"A", "1"}}, {}), config::ConfigError);
  // A line placeholder must stand alone on its line.
  EXPECT_THROW(render_template("x #@@L@@\n", "t", {}, {{"L", {}}}), config::ConfigError);
}

TEST(Jobscript, QuotesEveryValueAsOneShellWord) {
  EXPECT_EQ(shell_quote("a b"), "'a b'");
  EXPECT_EQ(shell_quote("it's $(x) `y`"), "'it'\\''s $(x) `y`'");
  EXPECT_EQ(shell_quote(""), "''");
  EXPECT_EQ(shell_quote_job_pattern("run-%j/x"), "'run-'\"${SLURM_JOB_ID}\"'/x'");
  EXPECT_EQ(comment_text("a\nb\rc\td"), "a b c d");
}

TEST(Jobscript, SlurmTimesHaveMinutesAndSecondsBelowSixty) {
  for (const char* ok :
       {"30", "30:00", "00:30:00", "120:00:00", "1-0", "1-23", "1-23:59", "2-00:00:59"})
    EXPECT_TRUE(valid_slurm_time(ok)) << ok;
  for (const char* bad : {"", "1h", "00:61:00", "00:00:99", "00:61:99", "1-24", "1-00:60",
                          "1:2:3:4", "1:", ":1", "-1", "1-", "99999999999999999999"})
    EXPECT_FALSE(valid_slurm_time(bad)) << bad;
  EXPECT_FALSE(valid_slurm_time(std::string(100000, '9')));
}

TEST(Jobscript, OneRankPerNodeUnlessAsked) {
  SystemProfile gpu;
  gpu.name = "g";
  gpu.backend = "cuda";
  gpu.gpus_per_node = 4;
  gpu.cores_per_node = 64;
  JobRequest req;
  EXPECT_EQ(layout_job(gpu, req).ranks_per_node, 1); // a single-GPU benchmark stays one rank
  EXPECT_EQ(layout_job(gpu, req).cpus_per_task, 64);
  req.ranks_per_node = 4;
  req.nodes = 2;
  const JobLayout l = layout_job(gpu, req);
  EXPECT_EQ(l.ranks(), 8);
  EXPECT_EQ(l.template_name, "gpu");
  req.ranks_per_node = 5;
  EXPECT_THROW(layout_job(gpu, req), config::ConfigError);
  req.ranks_per_node = 1;
  req.time = "00:61:99";
  EXPECT_THROW(layout_job(gpu, req), config::ConfigError);
}

} // namespace
} // namespace miniapp::jobs
