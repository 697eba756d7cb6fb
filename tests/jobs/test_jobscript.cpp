// Job-script rendering (jobs/jobscript.hpp): one pass that never rescans substituted text, shell
// quoting, Slurm time ranges and the rank layout (issue 15 item 6, issue 16 item 2).
#include "config/yaml_strict.hpp"
#include "jobs/jobscript.hpp"
#include "jobs/sbatch_guard.hpp"
#include "jobs/scheduler.hpp"
#include "jobs/shell_context.hpp"
#include "jobs/study.hpp"

#include <gtest/gtest.h>
#include <map>

#include <sstream>
#include <string>
#include <vector>

namespace miniapp::jobs {
namespace {

TEST(Scheduler, SlurmStatesMapToWhatTheStudyTellsApart) {
  // squeue -o %i|%T and sacct -P -o JobID,State lines; job steps are not jobs.
  const auto states = parse_slurm_states("12|COMPLETED\n12.batch|COMPLETED\n13|FAILED\n"
                                         "14|TIMEOUT\n15|CANCELLED by 0\n16|PENDING\n"
                                         "17|RUNNING\n18|COMPLETING\n19|OUT_OF_MEMORY\n"
                                         "20|NODE_FAIL\n21|WHATEVER\nnot a line\n");
  const std::map<std::string, JobState> want = {
      {"12", JobState::done},      {"13", JobState::failed},  {"14", JobState::timeout},
      {"15", JobState::cancelled}, {"16", JobState::pending}, {"17", JobState::running},
      {"18", JobState::running},   {"19", JobState::failed},  {"20", JobState::failed},
      {"21", JobState::unknown}};
  std::map<std::string, JobState> got;
  for (const auto& [id, status] : states)
    got[id] = status.state;
  EXPECT_EQ(got, want);
  EXPECT_EQ(states.at("15").word, "CANCELLED by 0");
  EXPECT_STREQ(job_state_name(JobState::timeout), "timeout");
}

TEST(Scheduler, SlurmSaysWhyAJobFailedOrWasRequeued) {
  // squeue -O JobID:|,State:|,RestartCnt:|,Reason: as Slurm 22.05 printed it once a node of
  // job 7 was set DOWN (requeued, then held back 120 s: BeginTime), and for jobs that failed.
  const auto states = parse_slurm_states("7|PENDING|1|BeginTime\n8|NODE_FAIL|0|NodeDown\n"
                                         "9|FAILED|0|NonZeroExitCode\n10|RUNNING|2|None\n"
                                         "11|COMPLETED|0|None\n");
  ASSERT_EQ(states.size(), 5u);
  EXPECT_EQ(states.at("7").state, JobState::pending);
  EXPECT_EQ(job_status_words(states.at("7")), "PENDING, BeginTime, requeued 1x");
  EXPECT_EQ(states.at("8").state, JobState::failed);
  EXPECT_EQ(job_status_words(states.at("8")), "NODE_FAIL, NodeDown");
  EXPECT_EQ(job_status_words(states.at("9")), "FAILED, NonZeroExitCode");
  EXPECT_EQ(job_status_words(states.at("10")), "RUNNING, requeued 2x");
  EXPECT_EQ(job_status_words(states.at("11")), "COMPLETED");
  // sacct's lines carry no reason and no restarts.
  const JobStatus old = parse_slurm_states("12|TIMEOUT\n").at("12");
  EXPECT_EQ(job_status_words(old), "TIMEOUT");
  // `sinfo -R -o %N|%T|%E`: which nodes are out of service, and the reason an admin gave.
  EXPECT_EQ(
      parse_slurm_node_reasons("node3|down*|slurmd stopped\nnode[1-2]|drained|a | b\nx|y\n"),
      (std::vector<std::string>{"node3 (down*: slurmd stopped)", "node[1-2] (drained: a | b)"}));
}

TEST(Scheduler, SlurmTextIsBoundedAndWithoutControls) {
  // A reason is free text (an admin's, a plugin's): escapes and newlines must not reach the
  // terminal, and a reason of a megabyte is cut to a line.
  const std::string hostile = "7|PEND\x1b[2JING|99999999999|Node \x1b]0;x\x07"
                              "down\r\t" +
                              std::string(1 << 20, 'r') + "\n";
  const JobStatus s = parse_slurm_states(hostile).at("7");
  EXPECT_EQ(s.word, "PEND[2JING");
  EXPECT_EQ(s.restarts, 0); // not a count: none
  EXPECT_EQ(s.reason.size(), kMaxSchedulerText);
  EXPECT_EQ(s.reason.rfind("Node ]0;xdown", 0), 0u) << s.reason;
  EXPECT_EQ(s.reason.substr(s.reason.size() - 3), "...");
  const auto nodes = parse_slurm_node_reasons("node1|down|" + std::string(1 << 20, '\x01') + "z\n");
  ASSERT_EQ(nodes.size(), 1u);
  EXPECT_EQ(nodes[0], "node1 (down: z)");
}

TEST(Scheduler, SlurmDependencyAndVariables) {
  const Scheduler& s = site_scheduler();
  EXPECT_EQ(s.after_any({"12", "13"}), "--dependency=afterany:12:13");
  EXPECT_EQ(s.after_any({}), "");
  EXPECT_EQ(s.job_id_variable(), "SLURM_JOB_ID");
  EXPECT_EQ(s.node_list_variable(), "SLURM_JOB_NODELIST");
}

TEST(Scheduler, CollectJobScriptQuotesEveryArgument) {
  HelperJob h;
  h.name = "miniapp-s-collect";
  h.time = "00:10:00";
  h.directives = {"#SBATCH --partition=p"};
  h.site = {"module load 'x'"};
  h.miniapp = "/opt/mini app/miniapp";
  h.args = {"study", "collect", "/a/$(touch M)/s.yaml"};
  h.command = "miniapp study submit s.yaml\n$(x)";
  const std::string out = site_scheduler().helper_script(h);
  EXPECT_NE(out.find("#SBATCH --job-name=miniapp-s-collect\n"), std::string::npos) << out;
  EXPECT_NE(out.find("#SBATCH --time=00:10:00\n"), std::string::npos);
  EXPECT_NE(out.find("#SBATCH --partition=p\n"), std::string::npos);
  EXPECT_NE(out.find("\nmodule load 'x'\n"), std::string::npos);
  EXPECT_NE(out.find("MINIAPP_DEFAULT='/opt/mini app/miniapp'\n"), std::string::npos);
  EXPECT_NE(out.find("ARGS=('study' 'collect' '/a/$(touch M)/s.yaml')\n"), std::string::npos)
      << out;
  EXPECT_EQ(out.find("\n$(x)"), std::string::npos); // the comment stays one line
}

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

// The #SBATCH --hint lines of a script.
std::vector<std::string> hint_lines(const std::string& script) {
  std::vector<std::string> out;
  std::istringstream lines(script);
  for (std::string line; std::getline(lines, line);)
    if (line.rfind("#SBATCH --hint", 0) == 0)
      out.push_back(line);
  return out;
}

TEST(Jobscript, CommandLineHintWinsOverTheProfiles) {
  const SystemProfile sys = parse_system_profile(
      "p.yaml", "name: p\nbackend: openmp\ncores_per_node: 8\nhint: multithread\n");
  EXPECT_EQ(sys.hint, "multithread");
  JobRequest req;
  req.config = "/data/c.yaml";
  req.experiment = "c";
  req.miniapp = "/opt/miniapp/bin/miniapp";
  using Lines = std::vector<std::string>;
  EXPECT_EQ(hint_lines(render_jobscript(sys, req)), Lines{"#SBATCH --hint=multithread"});
  req.hint = "nomultithread"; // jobscript --hint nomultithread
  EXPECT_EQ(hint_lines(render_jobscript(sys, req)), Lines{"#SBATCH --hint=nomultithread"});
  // A --hint among the profile's sbatch_options would follow the generated line, and sbatch
  // keeps the last one: it is refused at its position, in every form sbatch reads as --hint.
  for (const char* entry :
       {"--hint=multithread", "--hin=multithread", "--exclusive --hint multithread"}) {
    try {
      parse_system_profile("q.yaml", "name: q\nbackend: openmp\ncores_per_node: 8\n"
                                     "sbatch_options: [\"" +
                                         std::string(entry) + "\"]\n");
      ADD_FAILURE() << entry << " is accepted";
    } catch (const config::ConfigError& e) {
      EXPECT_NE(std::string(e.what()).find("q.yaml:4:18: "), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("--hint"), std::string::npos) << e.what();
    }
  }
  EXPECT_THROW(parse_system_profile("r.yaml", "name: r\nbackend: openmp\ncores_per_node: 8\n"
                                              "hint: sometimes\n"),
               config::ConfigError);
}

TEST(Jobscript, AnEmptyGpuBindLeavesSlurmsDefault) {
  const std::string profile = "name: g\nbackend: cuda\ngpus_per_node: 4\ncores_per_node: 8\n";
  EXPECT_EQ(parse_system_profile("g.yaml", profile).gpu_bind, "per_task:1");
  const SystemProfile sys = parse_system_profile("g.yaml", profile + "gpu_bind: \"\"\n");
  EXPECT_EQ(sys.gpu_bind, "");
  JobRequest req;
  req.config = "/data/c.yaml";
  req.experiment = "c";
  req.miniapp = "/opt/miniapp/bin/miniapp";
  // The template passes --gpu-bind only when GPU_BIND is set.
  EXPECT_NE(render_jobscript(sys, req).find("\nGPU_BIND='' "), std::string::npos);
  // An empty value without quotes is no value at all: still refused at its position.
  EXPECT_THROW(parse_system_profile("g.yaml", profile + "gpu_bind:\n"), config::ConfigError);
}

TEST(Jobscript, RoundsReachTheRunOnlyAboveOne) {
  SystemProfile cpu;
  cpu.name = "c";
  cpu.backend = "openmp";
  cpu.cores_per_node = 4;
  cpu.time = "00:10:00";
  JobRequest req;
  req.config = "/c.yaml";
  req.experiment = "e";
  req.miniapp = "/bin/miniapp";
  EXPECT_EQ(render_jobscript(cpu, req).find("--rounds"), std::string::npos);
  req.rounds = 3;
  EXPECT_NE(render_jobscript(cpu, req).find("RUN_ARGS=(--rounds 3)"), std::string::npos)
      << render_jobscript(cpu, req);
}

TEST(Study, RoundsKeyIsReadWithItsRange) {
  const std::string base = "name: s\nconfig: c.yaml\nsystems: [local]\nnodes: [1]\n"
                           "ranks_per_node: [1]\n";
  EXPECT_EQ(parse_study("s.yaml", base).rounds, 1);
  EXPECT_EQ(parse_study("s.yaml", base + "rounds: 5\n").rounds, 5);
  try {
    parse_study("s.yaml", base + "rounds: 0\n");
    FAIL() << "rounds 0 accepted";
  } catch (const config::ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("s.yaml:6:9: rounds 0 is out of range (1 to 1000)"),
              std::string::npos)
        << e.what();
  }
  EXPECT_TRUE(study_schema()["properties"].contains("rounds"));
}

} // namespace
} // namespace miniapp::jobs

namespace miniapp::jobs {
namespace {

// The context of the first byte of `marker` in `script`.
ShellContext context_of(const std::string& script, const std::string& marker) {
  return shell_contexts(script).at(script.find(marker));
}

TEST(ShellContext, FollowsQuotesExpansionsCommentsAndHereDocuments) {
  using C = ShellContext;
  EXPECT_EQ(context_of("X=@A y", "@A"), C::code);
  EXPECT_EQ(context_of("X=(@A)", "@A"), C::code);
  EXPECT_EQ(context_of("X=\"@A\"", "@A"), C::quoted);
  EXPECT_EQ(context_of("X='@A'", "@A"), C::quoted);
  EXPECT_EQ(context_of("X=$'\\'@A'", "@A"), C::quoted);
  EXPECT_EQ(context_of("X=`@A`", "@A"), C::quoted);
  EXPECT_EQ(context_of("X=${Y:-@A}", "@A"), C::quoted);
  EXPECT_EQ(context_of("X=$(echo @A)", "@A"), C::code);
  EXPECT_EQ(context_of("X=\"$(echo @A)\"", "@A"), C::quoted);
  EXPECT_EQ(context_of("X=\"a\\\"\" @A", "@A"), C::code);
  EXPECT_EQ(context_of("echo x # @A", "@A"), C::comment);
  EXPECT_EQ(context_of("echo x#@A", "@A"), C::code); // '#' inside a word
  EXPECT_EQ(context_of("echo $#@A", "@A"), C::code);
  EXPECT_EQ(context_of("# it's\n@A", "@A"), C::code); // a quote in a comment opens nothing
  EXPECT_EQ(context_of("cat <<EOF\n@A\nEOF\n", "@A"), C::quoted);
  EXPECT_EQ(context_of("cat <<EOF\nx\nEOF\n@A", "@A"), C::code);
  EXPECT_EQ(context_of("cat <<-'E' <<F\n\tE\n@A\nF\n", "@A"), C::quoted);
  EXPECT_EQ(context_of("cat <<-'E' <<F\n\tE\nx\nF\n@A", "@A"), C::code);
  EXPECT_EQ(context_of("cat <<<@A", "@A"), C::code);
  // Arithmetic expands $( ) inside single quotes: never code.
  EXPECT_EQ(context_of("echo $(( @A + 1 ))", "@A"), C::quoted);
  EXPECT_EQ(context_of("echo $(( (1) + @A ))", "@A"), C::quoted);
  EXPECT_EQ(context_of("echo $(( 1 )) @A", "@A"), C::code);
  EXPECT_EQ(context_of("(( @A ))", "@A"), C::quoted);
  EXPECT_EQ(context_of("(( 1 )); @A", "@A"), C::code);
  EXPECT_EQ(context_of("echo $[ @A ]", "@A"), C::quoted);
  EXPECT_EQ(context_of("let x=@A", "@A"), C::quoted);
  EXPECT_EQ(context_of("let x=1; @A", "@A"), C::code);
  EXPECT_EQ(context_of("[[ @A -eq 1 ]]", "@A"), C::quoted);
  EXPECT_EQ(context_of("[[ 1 -eq 1 ]] && @A", "@A"), C::code);
  EXPECT_EQ(context_of("( @A )", "@A"), C::code);
}

TEST(Jobscript, PlaceholdersOnlyWhereTheirValuesAreInert) {
  const std::map<std::string, Placeholder> values = {{"W", Placeholder("'$(x)'", Fill::words)},
                                                     {"C", Placeholder("$(x)", Fill::comment)},
                                                     {"T", Placeholder("64", Fill::token)}};
  EXPECT_EQ(render_template("# @@C@@\nX=@@W@@ \"@@T@@\" '@@T@@'\n", "t", values, {}),
            "# $(x)\nX='$(x)' \"64\" '64'\n");
  for (const char* bad : {"echo \"@@C@@\"\n", "echo @@C@@\n", "#SBATCH --comment=@@C@@\n",
                          "#!/bin/sh @@C@@\n", "X=\"@@W@@\"\n", "# @@W@@\n", "cat <<E\n@@W@@\nE\n"})
    EXPECT_THROW(render_template(bad, "t", values, {}), config::ConfigError) << bad;
}

TEST(Jobscript, CrlfTemplatesAreReadAsLf) {
  EXPECT_EQ(check_job_template("a\r\nb\r\n", "t"), "a\nb\n");
  EXPECT_THROW(check_job_template("a\rb\n", "t"), config::ConfigError);
  EXPECT_THROW(check_job_template(std::string("a\0b", 3), "t"), config::ConfigError);
  EXPECT_THROW(check_job_template("", "t"), config::ConfigError);
}

TEST(SbatchGuard, ReadsEntriesAsGetoptLongDoes) {
  for (const char* refused : {"--nodes=8", "--nod=8", "--nodes 8", "--time 5", "--t=5",
                              "--output=x", "--tasks-per-node=2", "--constraint=a -N8", "-vN8",
                              "--x=1 --job=a", "--gpus-per=1", "--ntasks"})
    EXPECT_FALSE(generated_sbatch_option(refused).option.empty()) << refused;
  for (const char* allowed :
       {"--gpus=2", "--time-min=5", "--nodelist=n1", "--ntasks-per-core=1", "--constraint=a100",
        "--exclusive", "-Cgpu", "--comment=x", "--mem=0"})
    EXPECT_EQ(generated_sbatch_option(allowed).option, "") << allowed;
  EXPECT_EQ(generated_sbatch_option("--nod=8").option, "--nodes");
  EXPECT_EQ(generated_sbatch_option("--tasks-per-node=2").option, "--ntasks-per-node");
  EXPECT_EQ(generated_sbatch_option("--exclusive -vt5").word, "-vt5");
}

} // namespace
} // namespace miniapp::jobs
