// The one strict reader of files the tool reads back (core/input_file.hpp): a FIFO, a device or a
// directory is refused before a byte is read (a FIFO made `study status` and `run` wait for ever,
// issue 42), the size and the JSON nesting are bounded, and every refusal names the path.
#include "core/input_file.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <future>
#include <string>
#include <sys/stat.h>
#include <unistd.h>
#include <utility>
#include <vector>

namespace miniapp {
namespace {

namespace fs = std::filesystem;
using Why = InputFileError::Why;

class InputFile : public ::testing::Test {
protected:
  void SetUp() override {
    char name[] = "/tmp/miniapp-input-file-XXXXXX";
    ASSERT_NE(::mkdtemp(name), nullptr);
    dir = name;
  }
  void TearDown() override { fs::remove_all(dir); }
  std::string write(const std::string& name, const std::string& text) const {
    std::ofstream(dir + "/" + name, std::ios::binary) << text;
    return dir + "/" + name;
  }
  // The refusal of reading `path` (at most max_bytes), or nullopt-like Why::missing+"" if read.
  static std::pair<Why, std::string> refusal(const std::string& path, std::uint64_t max_bytes) {
    try {
      read_regular_file(path, max_bytes);
    } catch (const InputFileError& e) {
      return {e.why, e.what()};
    }
    return {Why::missing, "read"};
  }
  std::string dir;
};

TEST_F(InputFile, ARegularFileIsReadWhole) {
  const std::string path = write("a.json", "{\"a\": [1, 2]}");
  EXPECT_EQ(read_regular_file(path, 13), "{\"a\": [1, 2]}");
  EXPECT_EQ(read_json_file(path, 100, 2, 2)["a"][1], 2);
  fs::create_symlink(path, dir + "/link.json"); // a link to a regular file is read
  EXPECT_EQ(read_regular_file(dir + "/link.json", 100), "{\"a\": [1, 2]}");
}

// The read runs on its own thread, so a reader that blocks on the FIFO fails the test instead of
// hanging it (the thread is left behind, blocked, until a writer opens the FIFO below).
TEST_F(InputFile, AFifoIsRefusedWithoutWaitingForAWriter) {
  const std::string fifo = dir + "/state.json";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  auto read = std::async(std::launch::async, [&] { return refusal(fifo, 1 << 20); });
  if (read.wait_for(std::chrono::seconds(30)) != std::future_status::ready) {
    std::ofstream unblock(fifo); // lets the blocked reader end
    FAIL() << "reading a FIFO waited for a writer";
  }
  const auto [why, what] = read.get();
  EXPECT_EQ(why, Why::not_regular);
  EXPECT_EQ(what, fifo + ": is a FIFO, not a regular file; refused unread (it could block or "
                         "never end)");
}

TEST_F(InputFile, DevicesDirectoriesAndMissingFilesAreRefusedNamingThePath) {
  EXPECT_EQ(refusal("/dev/zero", 1 << 20).first, Why::not_regular);
  EXPECT_NE(refusal("/dev/zero", 1 << 20).second.find("/dev/zero: is a character device"),
            std::string::npos);
  fs::create_symlink("/dev/zero", dir + "/zero.json"); // behind a link too
  EXPECT_EQ(refusal(dir + "/zero.json", 1 << 20).first, Why::not_regular);
  EXPECT_EQ(refusal(dir, 1 << 20).first, Why::not_regular);
  const auto [why, what] = refusal(dir + "/none.json", 1 << 20);
  EXPECT_EQ(why, Why::missing);
  EXPECT_EQ(what.rfind(dir + "/none.json: cannot open: ", 0), 0u) << what;
}

TEST_F(InputFile, TheSizeIsBounded) {
  const std::string path = write("big.json", std::string(1025, ' '));
  EXPECT_EQ(read_regular_file(path, 1025).size(), 1025u);
  const auto [why, what] = refusal(path, 1024);
  EXPECT_EQ(why, Why::too_large);
  EXPECT_EQ(what.rfind(path + ": larger than 1 KiB", 0), 0u) << what;
}

TEST_F(InputFile, JsonNestingAndContainersAreBoundedBeforeParsing) {
  EXPECT_NO_THROW(parse_json_bounded("[[[\"[[[[\"]]]", "s", 3, 3)); // brackets in strings
  for (const auto& [text, needle] :
       {std::pair<std::string, std::string>{"[[[[]]]]", "s: JSON nested deeper than 3 levels"},
        {"[[],[],[]]", "s: more than 3 JSON maps and lists"},
        {"{\"a\": ", "s: not valid JSON"}}) {
    try {
      parse_json_bounded(text, "s", 3, 3);
      ADD_FAILURE() << text << " was parsed";
    } catch (const InputFileError& e) {
      EXPECT_EQ(e.why, Why::not_json);
      EXPECT_EQ(std::string(e.what()).rfind(needle, 0), 0u) << e.what();
    }
  }
}

// nlohmann keeps the last value of a key given twice: a resumed row '"status": "ok", "status":
// "error"' was read as an error, a study's '"nodes": 1, "nodes": 1073741824' as 2^30, silently.
// No file the program writes holds a key twice; one that does is refused, naming map and key.
TEST_F(InputFile, AKeyGivenTwiceInOneMapIsRefusedNamingTheMapAndTheKey) {
  for (const auto& [text, needle] : std::vector<std::pair<std::string, std::string>>{
           {R"({"a": 1, "a": 2})", "s: the top-level map has the key 'a' twice; "},
           {R"({"results": [{"x": 1}, {"status": "ok", "status": "error"}]})",
            "s: results[1] has the key 'status' twice; "},
           {R"({"m": {"k": {"v": [1, 2, {"z": 0, "z": 0}]}}})",
            "s: m.k.v[2] has the key 'z' twice"},
           {R"({"a": {}, "b": 1, "a": 2})", "s: the top-level map has the key 'a' twice"},
           {R"({"\u001b[2J": 1, "\u001b[2J": 2})", "s: the top-level map has the key '"}}) {
    try {
      parse_json_bounded(text, "s", 8, 100);
      ADD_FAILURE() << text << " was parsed";
    } catch (const InputFileError& e) {
      EXPECT_EQ(e.why, Why::duplicate_key);
      EXPECT_EQ(std::string(e.what()).rfind(needle, 0), 0u) << e.what();
      EXPECT_NE(std::string(e.what()).find("edited or damaged"), std::string::npos) << e.what();
      EXPECT_EQ(std::string(e.what()).find('\x1b'), std::string::npos) << e.what();
    }
  }
  // The same key in different maps, and equal values in a list, are what files hold.
  const nlohmann::json ok = parse_json_bounded(
      R"({"a": {"k": 1}, "b": {"k": 2}, "l": ["k", "k"], "k": [{"k": 3}]})", "s", 8, 100);
  EXPECT_EQ(ok["b"]["k"], 2);
  EXPECT_EQ(ok["k"][0]["k"], 3);
}

TEST_F(InputFile, ThePathIsPrintedWithoutTerminalEscapes) {
  const auto [why, what] = refusal(dir + "/\x1b]0;x\x07.json", 10);
  EXPECT_EQ(what.find('\x1b'), std::string::npos) << what;
}

} // namespace
} // namespace miniapp
