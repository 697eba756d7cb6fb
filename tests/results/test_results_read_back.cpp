// A results.json read back (by compare, report, db import and `run --resume`) is an input like any
// other (issue 42): a FIFO in its place is refused unread and named, and a map holding a key twice
// is refused naming the key, where it was read last-wins.
#include "config/value.hpp"
#include "results/resume.hpp"
#include "results/run.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <sys/stat.h>

namespace miniapp {
namespace {

class ResultsReadBack : public ::testing::Test {
protected:
  void SetUp() override {
    char name[] = "/tmp/miniapp-results-read-back-XXXXXX";
    ASSERT_NE(::mkdtemp(name), nullptr);
    dir = name;
    path = dir + "/results.json";
  }
  void TearDown() override { std::filesystem::remove_all(dir); }
  // What compare's loader and `run --resume` say of the directory.
  std::string compare_refusal() const {
    try {
      compare::load_run(dir);
      return "";
    } catch (const std::runtime_error& e) {
      return e.what();
    }
  }
  std::string resume_refusal() const {
    try {
      read_resume_state(dir, Plan{}, 1, 1);
      return "";
    } catch (const config::ConfigError& e) {
      return e.what();
    }
  }
  std::string dir, path;
};

// A row '"status": "ok", "status": "error"' was resumed as the error (and the case run again), or
// with the keys the other way round kept as ok: which one the file meant is unknown.
TEST_F(ResultsReadBack, AKeyGivenTwiceIsRefusedNamingTheRowAndTheKey) {
  std::ofstream(path) << R"({"schema_version": 2, "status": "interrupted", "metadata": {},
    "config": {}, "results": [{"case": 0, "status": "ok"}, {"case": 1, "status": "ok",
    "status": "error"}]})";
  const std::string sentence =
      path + ": results[1] has the key 'status' twice; the program writes each key once, so the "
             "file was edited or damaged and which value was meant is unknown";
  EXPECT_EQ(compare_refusal(), sentence);
  EXPECT_EQ(resume_refusal(), "miniapp run --resume: " + sentence);
}

// A FIFO results.json was passed over as absent ("no results.json"): the strict reader names it.
TEST_F(ResultsReadBack, AFifoIsRefusedUnreadAndNamed) {
  ASSERT_EQ(::mkfifo(path.c_str(), 0600), 0);
  EXPECT_EQ(compare_refusal().rfind(path + ": is a FIFO, not a regular file; refused unread", 0),
            0u)
      << compare_refusal();
  EXPECT_EQ(resume_refusal().rfind("miniapp run --resume: " + path + ": is a FIFO", 0), 0u)
      << resume_refusal();
  std::filesystem::remove(path);
  EXPECT_EQ(resume_refusal(),
            "miniapp run --resume: " + dir + " is not a results directory: it has no results.json");
}

} // namespace
} // namespace miniapp
