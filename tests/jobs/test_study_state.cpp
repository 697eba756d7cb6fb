// A study's state file read back (jobs/study_state.hpp) is an input like any other (issue 42):
// every count range-checked, every path it names for the study to write, read or submit under
// the study's directory; anything else refused with one sentence naming the file.
#include "config/config.hpp"
#include "jobs/study_state.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <sys/stat.h>

namespace miniapp::jobs {
namespace {

using json = nlohmann::json;

// A study directory of its own, removed afterwards.
class StudyStateFile : public ::testing::Test {
protected:
  void SetUp() override {
    char name[] = "/tmp/miniapp-study-state-XXXXXX";
    ASSERT_NE(::mkdtemp(name), nullptr);
    dir = name;
    path = dir + "/study-state.json";
  }
  void TearDown() override { std::filesystem::remove_all(dir); }

  // The state `study submit` writes for one point, as JSON to edit.
  json written() const {
    return {{"study", "s"},
            {"study_file", "/studies/s.yaml"},
            {"scheduler", "slurm"},
            {"scaling", "strong"},
            {"points",
             {{{"system", "four.yaml"},
               {"system_name", "four"},
               {"nodes", 2},
               {"ranks_per_node", 4},
               {"script", dir + "/point-1.sh"},
               {"output_dir", dir + "/results/point-1"},
               {"jobs", {"11"}}}}},
            {"collect", {{"script", dir + "/collect.sh"}, {"jobs", {"12"}}}}};
  }
  // What loading `doc` says: "" when it loads, else the error.
  std::string refusal(const json& doc) const {
    std::ofstream(path) << doc.dump(2);
    try {
      load_study_state(path);
      return "";
    } catch (const config::ConfigError& e) {
      return e.what();
    }
  }

  std::string dir, path;
};

TEST_F(StudyStateFile, TheStateSubmitWritesLoads) {
  EXPECT_EQ(refusal(written()), "");
  const StudyState st = load_study_state(path);
  ASSERT_EQ(st.points.size(), 1u);
  EXPECT_EQ(st.points[0].point.ranks(), 8);
  EXPECT_EQ(st.points[0].script, dir + "/point-1.sh");
}

// A node count of 2^30 made `study collect` loop for ever (memory growing ~60 MB/s); 0 and -1
// gave efficiencies of -nan and "ranks -2".
TEST_F(StudyStateFile, CountsOutsideTheirRangeAreRefused) {
  for (const json& bad : {json(1 << 30), json(0), json(-1), json(1.5), json("2"), json(nullptr),
                          json(std::uint64_t(1) << 63)})
    for (const char* key : {"nodes", "ranks_per_node"}) {
      json doc = written();
      doc["points"][0][key] = bad;
      const std::string why = refusal(doc);
      EXPECT_EQ(why.rfind(path + ": ", 0), 0u) << key << " " << bad << ": " << why;
      EXPECT_NE(why.find(std::string("point 1's ") + key), std::string::npos) << why;
      EXPECT_NE(why.find("not a count from 1 to 1000000"), std::string::npos) << why;
    }
  json doc = written();
  doc["points"][0]["nodes"] = 1000;
  doc["points"][0]["ranks_per_node"] = 1000;
  EXPECT_EQ(refusal(doc), "");
  doc["points"][0]["nodes"] = 1001;
  EXPECT_NE(refusal(doc).find("nodes x ranks_per_node is more than 1000000 ranks"),
            std::string::npos);
  doc = written();
  doc["points"] = json::array();
  for (int i = 0; i < 1001; ++i)
    doc["points"].push_back(written()["points"][0]);
  EXPECT_NE(refusal(doc).find("at most 1000 points"), std::string::npos);
}

// `study resubmit` handed sbatch whatever script the state named, and `collect` imported whatever
// directory it named (another study's run, any directory).
TEST_F(StudyStateFile, PathsOutsideTheStudysDirectoryAreRefused) {
  const std::string outside = std::filesystem::path(dir).parent_path().string();
  for (const std::string& bad :
       {std::string("/tmp/evil.sh"), dir + "/../evil.sh", std::string("point-1.sh"),
        std::string(""), dir, dir + "/", outside, dir + "x/point-1.sh"})
    for (const char* key : {"script", "output_dir"}) {
      json doc = written();
      doc["points"][0][key] = bad;
      const std::string why = refusal(doc);
      EXPECT_EQ(why.rfind(path + ": point 1's " + key + " '", 0), 0u) << bad << ": " << why;
      EXPECT_NE(why.find("' lies outside the study's directory " + dir + ";"), std::string::npos)
          << why;
    }
  json doc = written();
  doc["collect"]["script"] = "/bin/true";
  EXPECT_NE(refusal(doc).find("the collect script '/bin/true' lies outside"), std::string::npos);
  // Inside, however written, is inside.
  doc = written();
  doc["points"][0]["script"] = dir + "/results/../point-1.sh";
  EXPECT_EQ(refusal(doc), "");
}

// Every field typed: a wrong type ended in the JSON library's own message; a control character in a
// name or path reached the terminal through `status` and `collect` (issue 42, 21); a job id is what
// a scheduler could have given (it is handed to squeue and sbatch).
TEST_F(StudyStateFile, FieldsAreTypedAndTextsPlain) {
  const std::pair<json::json_pointer, json> bad[] = {
      {json::json_pointer("/study"), 5},
      {json::json_pointer("/scaling"), "sideways"},
      {json::json_pointer("/points/0"), "p"},
      {json::json_pointer("/points/0/system_name"), "\x1b]0;owned\x07"
                                                    "four"},
      {json::json_pointer("/points/0/system"), json::array()},
      {json::json_pointer("/points/0/jobs"), "11"},
      {json::json_pointer("/points/0/jobs/0"), 11},
      {json::json_pointer("/points/0/jobs/0"), "11; rm -rf ~"},
      {json::json_pointer("/points/0/jobs/0"), ""},
      {json::json_pointer("/collect"), json::array()},
      {json::json_pointer("/collect/jobs"), json::array({std::string(65, '1')})},
  };
  for (const auto& [where, value] : bad) {
    json doc = written();
    doc[where] = value;
    const std::string why = refusal(doc);
    EXPECT_EQ(why.rfind(path + ": ", 0), 0u) << where << ": " << why;
    EXPECT_NE(why.find("not written by `miniapp study submit`"), std::string::npos) << why;
    EXPECT_EQ(why.find('\x1b'), std::string::npos) << why;
  }
  json doc = written();
  doc["points"][0]["output_dir"] = dir + "/results/\x1b[2Jpoint-1";
  EXPECT_NE(refusal(doc).find("point 1's output_dir"), std::string::npos);
  doc = written();
  doc["points"][0]["jobs"] = json::array();
  for (int i = 0; i < 1001; ++i)
    doc["points"][0]["jobs"].push_back(std::to_string(i));
  EXPECT_NE(refusal(doc).find("at most 1000 job ids"), std::string::npos);
  // Nesting beyond the state's four levels is refused before it is parsed.
  std::ofstream(path) << "{\"study\": " << std::string(5, '[') << std::string(5, ']') << "}";
  EXPECT_THROW(load_study_state(path), config::ConfigError);
}

// A key given twice was read last-wins: '"nodes": 1, "nodes": 1073741824' gave 2^30 nodes, and
// '"nodes": 1073741824, "nodes": 1' a state that loaded. Either way the file was edited: refused.
TEST_F(StudyStateFile, AKeyGivenTwiceIsRefusedNamingIt) {
  const std::string text = written().dump(1);
  const std::string nodes = "\"nodes\": 2";
  ASSERT_NE(text.find(nodes), std::string::npos) << text;
  for (const std::string& twice : {nodes + ", \"nodes\": 2", "\"nodes\": 1073741824, " + nodes}) {
    std::string edited = text;
    edited.replace(edited.find(nodes), nodes.size(), twice);
    std::ofstream(path) << edited;
    try {
      load_study_state(path);
      ADD_FAILURE() << "loaded: " << twice;
    } catch (const config::ConfigError& e) {
      EXPECT_EQ(std::string(e.what()).rfind(path + ": points[0] has the key 'nodes' twice", 0), 0u)
          << e.what();
    }
  }
}

// A FIFO in place of the state made `study status` wait for ever.
TEST_F(StudyStateFile, AFifoIsRefusedUnread) {
  ASSERT_EQ(::mkfifo(path.c_str(), 0600), 0);
  try {
    load_study_state(path);
    ADD_FAILURE() << "a FIFO was read";
  } catch (const config::ConfigError& e) {
    EXPECT_EQ(std::string(e.what()).rfind(path + ": is a FIFO", 0), 0u) << e.what();
  }
}

// Two `study submit` started together both submitted every point (issue 42, 5): the lock is taken
// by one, and the other is refused at once.
TEST_F(StudyStateFile, TheLockIsHeldByOneCommandAtATime) {
  {
    const StudyLock first(path);
    try {
      const StudyLock second(path);
      ADD_FAILURE() << "the lock was taken twice";
    } catch (const StudyBusy& e) {
      EXPECT_NE(std::string(e.what()).find(dir + "/study-state.lock"), std::string::npos)
          << e.what();
    }
  }
  EXPECT_NO_THROW(StudyLock again(path)); // released with its holder
}

} // namespace
} // namespace miniapp::jobs
