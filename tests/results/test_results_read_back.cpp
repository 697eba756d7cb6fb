// A results.json read back (by compare, report, db import and `run --resume`) is an input like any
// other (issue 42): a FIFO in its place is refused unread and named.
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
