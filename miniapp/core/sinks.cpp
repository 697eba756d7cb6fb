#include "core/sinks.hpp"

#include <cstdio>

namespace miniapp {

namespace {

std::string hex_byte(unsigned char b) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "\\x%02x", b);
  return buf;
}

// The length of the valid UTF-8 sequence at s[i] (2 to 4 bytes, no overlong form, no surrogate,
// at most U+10FFFF), or 0 when there is none.
std::size_t utf8_length(const std::string& s, std::size_t i) {
  const auto at = [&](std::size_t k) {
    return k < s.size() ? static_cast<unsigned char>(s[k]) : 0u;
  };
  const unsigned b0 = at(i);
  const auto cont = [&](std::size_t k) { return (at(k) & 0xC0u) == 0x80u; };
  if (b0 >= 0xC2 && b0 <= 0xDF)
    return cont(i + 1) ? 2 : 0;
  if (b0 >= 0xE0 && b0 <= 0xEF) {
    const unsigned b1 = at(i + 1);
    if (!cont(i + 1) || !cont(i + 2) || (b0 == 0xE0 && b1 < 0xA0) || (b0 == 0xED && b1 >= 0xA0))
      return 0;
    return 3;
  }
  if (b0 >= 0xF0 && b0 <= 0xF4) {
    const unsigned b1 = at(i + 1);
    if (!cont(i + 1) || !cont(i + 2) || !cont(i + 3) || (b0 == 0xF0 && b1 < 0x90) ||
        (b0 == 0xF4 && b1 >= 0x90))
      return 0;
    return 4;
  }
  return 0;
}

// for_terminal, keeping newlines and tabs where `lines` is set.
std::string visible(const std::string& s, bool lines) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size();) {
    const auto b = static_cast<unsigned char>(s[i]);
    if ((b >= 0x20 && b < 0x7f) || (lines && (b == '\n' || b == '\t'))) {
      out += s[i++];
      continue;
    }
    if (b < 0x80) { // C0 controls and DEL
      out += hex_byte(b);
      ++i;
      continue;
    }
    const std::size_t n = utf8_length(s, i);
    if (n == 0) { // not UTF-8: a lone byte 0x9b is CSI to an 8-bit terminal
      out += hex_byte(b);
      ++i;
      continue;
    }
    if (n == 2 && b == 0xC2 && static_cast<unsigned char>(s[i + 1]) < 0xA0) { // C1: U+0080-U+009F
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned char>(s[i + 1]));
      out += buf;
    } else {
      out.append(s, i, n);
    }
    i += n;
  }
  return out;
}

} // namespace

std::string for_terminal(const std::string& s) {
  return visible(s, false);
}

std::string csv_escape(const std::string& s) {
  if (s.find_first_of(",\"\r\n") == std::string::npos)
    return s;
  std::string out = "\"";
  for (char ch : s)
    out += ch == '"' ? std::string("\"\"") : std::string(1, ch);
  return out + "\"";
}

bool is_decimal_number(const std::string& s) {
  std::size_t i = 0;
  const auto digits = [&] {
    const std::size_t from = i;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9')
      ++i;
    return i - from;
  };
  if (i < s.size() && (s[i] == '-' || s[i] == '+'))
    ++i;
  std::size_t mantissa = digits();
  if (i < s.size() && s[i] == '.') {
    ++i;
    mantissa += digits();
  }
  if (mantissa == 0)
    return false;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '-' || s[i] == '+'))
      ++i;
    if (digits() == 0)
      return false;
  }
  return i == s.size();
}

std::string for_csv_cell(const std::string& s) {
  // A lone "-" or "+" is text to every spreadsheet (the "none" of a column), not a formula.
  const bool formula = !s.empty() && std::string("=+-@\t\r").find(s[0]) != std::string::npos &&
                       s != "-" && s != "+" && !is_decimal_number(s);
  // The file is printed on terminals too: controls but newlines and tabs made visible.
  return csv_escape(visible(formula ? "'" + s : s, true));
}

std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s)
    out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string shell_word(const std::string& w) {
  const bool plain =
      !w.empty() && w.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                        "0123456789_./=:%,+-@") == std::string::npos;
  return plain ? w : shell_quote(w);
}

std::string comment_text(const std::string& s) {
  std::string out = s;
  for (char& c : out)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
      c = ' ';
  return out;
}

std::string path_problem(const std::string& s) {
  for (std::size_t i = 0; i < s.size(); ++i) {
    const auto b = static_cast<unsigned char>(s[i]);
    if (b == 0)
      return "has a NUL byte at offset " + std::to_string(i);
    if (b < 0x20 || b == 0x7f)
      return "has the control character 0" + hex_byte(b).substr(1) + " at offset " +
             std::to_string(i);
  }
  return "";
}

} // namespace miniapp
