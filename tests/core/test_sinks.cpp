// The one sanitiser per sink (core/sinks.hpp) and the writers that must use them: terminal text
// (issue 23 item 9), spreadsheet cells (item 10), shell words and paths. tests/sinks/ checks the
// program end to end and that no writer quotes or escapes on its own.
#include "core/sinks.hpp"
#include "compare/tables.hpp"

#include <gtest/gtest.h>

#include <fstream>

namespace miniapp {
namespace {

TEST(Sinks, TerminalTextHasNoControlSequences) {
  EXPECT_EQ(for_terminal("plain text, 1.5 GB/s"), "plain text, 1.5 GB/s");
  EXPECT_EQ(for_terminal("\x1b]0;title\x07"), "\\x1b]0;title\\x07");
  EXPECT_EQ(for_terminal("a\nb\tc\rd\x7f"), "a\\x0ab\\x09c\\x0dd\\x7f");
  EXPECT_EQ(for_terminal(std::string("x\0y", 3)), "x\\x00y");
  // C1 controls: U+009B (CSI) in UTF-8, and a lone 0x9b byte (CSI to an 8-bit terminal).
  EXPECT_EQ(for_terminal("\xc2\x9b"
                         "31m"),
            "\\u009b31m");
  EXPECT_EQ(for_terminal("\x9b"
                         "31m"),
            "\\x9b31m");
  // UTF-8 text stays: accents, CJK, emoji; malformed and overlong sequences do not.
  EXPECT_EQ(for_terminal("Ryzen\xe2\x84\xa2 caf\xc3\xa9 \xe6\x97\xa5 \xf0\x9f\x9a\x80"),
            "Ryzen\xe2\x84\xa2 caf\xc3\xa9 \xe6\x97\xa5 \xf0\x9f\x9a\x80");
  EXPECT_EQ(for_terminal("\xc0\x9b"), "\\xc0\\x9b");
  EXPECT_EQ(for_terminal("\xe2\x84"), "\\xe2\\x84");
}

TEST(Sinks, SpreadsheetCellsNeverStartAFormula) {
  EXPECT_EQ(for_csv_cell("=HYPERLINK(\"http://x\",\"y\")"),
            "\"'=HYPERLINK(\"\"http://x\"\",\"\"y\"\")\"");
  EXPECT_EQ(for_csv_cell("+1+cmd|' /C calc'!A0"), "'+1+cmd|' /C calc'!A0");
  EXPECT_EQ(for_csv_cell("-2+3"), "'-2+3");
  EXPECT_EQ(for_csv_cell("@SUM(A1)"), "'@SUM(A1)");
  EXPECT_EQ(for_csv_cell("\t=1"), "'\t=1");
  EXPECT_EQ(for_csv_cell("\r=1"), "'\\x0d=1");
  // Numbers stay numbers; a lone "-" (none) stays text as it is.
  for (const char* n : {"-1", "-1.5", "+2", "-2e-05", "-.5", "3.25E+10", "0"})
    EXPECT_EQ(for_csv_cell(n), n);
  EXPECT_EQ(for_csv_cell("-"), "-");
  EXPECT_EQ(for_csv_cell("a,b"), "\"a,b\"");
  EXPECT_EQ(for_csv_cell("line\nbreak"), "\"line\nbreak\"");
  EXPECT_EQ(for_csv_cell("esc\x1b[2J"), "esc\\x1b[2J");
  EXPECT_FALSE(is_decimal_number("-"));
  EXPECT_FALSE(is_decimal_number("1e"));
  EXPECT_FALSE(is_decimal_number("-1-1"));
  EXPECT_FALSE(is_decimal_number("inf"));
  EXPECT_TRUE(is_decimal_number("-0.25e+3"));
}

TEST(Sinks, ShellWordsAreInert) {
  EXPECT_EQ(shell_word("run"), "run");
  EXPECT_EQ(shell_word("output.directory=/tmp/x"), "output.directory=/tmp/x");
  EXPECT_EQ(shell_word("a b"), "'a b'");
  EXPECT_EQ(shell_word(""), "''");
  EXPECT_EQ(shell_word("$(touch x)"), "'$(touch x)'");
}

TEST(Sinks, PathsWithNulOrControlBytesAreRefused) {
  EXPECT_EQ(path_problem("refs.yaml"), "");
  EXPECT_EQ(path_problem("/a b/caf\xc3\xa9.yaml"), "");
  EXPECT_EQ(path_problem(std::string("refs.yaml\0.bak", 14)), "has a NUL byte at offset 9");
  EXPECT_EQ(path_problem("a\x1b[2Jb"), "has the control character 0x1b at offset 1");
  EXPECT_EQ(path_problem("a\nb"), "has the control character 0x0a at offset 1");
}

// A shipped run (docs/data) whose machine says hostile things.
nlohmann::json hostile_run(const std::string& name) {
  std::ifstream in(std::string(MINIAPP_SOURCE_DIR) + "/docs/data/" + name + "/results.json");
  nlohmann::json doc = nlohmann::json::parse(in);
  doc["metadata"]["device_name"] = "\x1b]0;owned\x07=HYPERLINK(\"http://evil\",\"x\")";
  doc["metadata"]["host_name"] = "@SUM(1+1)\x1b[2J";
  doc["metadata"]["label"] = "-cmd|' /C calc'!A0";
  return doc;
}

TEST(Sinks, CompareWritesNoEscapeSequenceAndNoFormula) {
  const compare::Comparison c =
      compare::compare_runs({compare::run_from_json(hostile_run("paper_table1-openmp"), "a"),
                             compare::run_from_json(hostile_run("paper_table1-serial"), "b")},
                            {});
  for (const std::string& out : {compare::to_markdown(c), compare::to_csv(c)}) {
    for (const char ch : out)
      EXPECT_TRUE(ch == '\n' || static_cast<unsigned char>(ch) >= 0x20) << out;
    EXPECT_EQ(out.find('\x7f'), std::string::npos) << out;
  }
  const std::string csv = compare::to_csv(c);
  EXPECT_NE(csv.find(",'@SUM(1+1)\\x1b[2J,"), std::string::npos) << csv;
  EXPECT_NE(csv.find(",'-cmd|' /C calc'!A0,"), std::string::npos) << csv;
  EXPECT_EQ(csv.find(",="), std::string::npos) << csv;
  EXPECT_EQ(csv.find(",@"), std::string::npos) << csv;
  EXPECT_EQ(csv.find(",\"="), std::string::npos) << csv;
}

} // namespace
} // namespace miniapp
