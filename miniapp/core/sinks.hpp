#pragma once
// The one sanitiser for each place a string from outside the program can do harm (docs/security.md
// rule: every label, device name, path or value that reaches one of these sinks passes the
// function for that sink, and nothing else writes to the sink):
//   a terminal           for_terminal   (escape sequences must not reach the terminal)
//   a spreadsheet cell   for_csv_cell   (a cell must not become a formula)
//   a CSV field          csv_escape     (data files read back by the program: quoting only)
//   a shell word         shell_quote    (nothing inside may be expanded)
//   a script comment     comment_text   (the text must not leave the comment)
//   a path or name       path_problem   (a NUL or control byte would name another file)
// tests/core/test_sinks.cpp tests each; tests/sinks/check_sinks.py fails when a writer bypasses them.
#include <string>

namespace miniapp {

// Text for a terminal: every C0 control (newline and tab included), DEL, every C1 control
// (U+0080-U+009F) and every byte that is not valid UTF-8 written as a visible "\xHH" (C1 as
// "\u0085"); printable text, UTF-8 included, as it is. The result is one line without any byte a
// terminal reads as a command.
std::string for_terminal(const std::string& s);

// RFC 4180 quoting where needed (a ',', '"', CR or LF in the field); the text itself unchanged.
std::string csv_escape(const std::string& field);

// A text cell of a CSV file meant for spreadsheets (and printed on terminals): a cell that starts
// with '=', '+', '-', '@', a tab or a carriage return (a formula to Excel, LibreOffice and Google
// Sheets) gets a leading single quote (OWASP's advice), unless the whole cell is a decimal number
// (a negative number stays a number) or a lone "-" or "+"; controls but newline and tab are made
// visible as for_terminal does; then csv_escape.
std::string for_csv_cell(const std::string& field);
// Whether `s` is a decimal number as printf writes one ("-1.5", "2e-05", "inf" is not).
bool is_decimal_number(const std::string& s);

// One shell word in single quotes (a ' becomes '\''): nothing inside is expanded.
std::string shell_quote(const std::string& s);
// A shell word as a user would type it: plain words (letters, digits, _./=:%,+-@) as they are,
// anything else shell_quote'd. For command lines shown to users and written into files.
std::string shell_word(const std::string& s);

// Text for a comment line of a script (and one-line messages quoting a value): control
// characters, newlines included, become spaces, so the text cannot leave the comment.
std::string comment_text(const std::string& s);

// Why `s` cannot be a path or a name the program passes on: "" when it can, else the reason
// ("has a NUL byte at offset 9", "has the control character 0x1b at offset 3"). A NUL would cut
// the string short where the operating system reads it (the program checks one file, another
// one is opened); other controls are never part of a real file name.
std::string path_problem(const std::string& s);

} // namespace miniapp
