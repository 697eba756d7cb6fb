#include "config/yaml_strict.hpp"

#include "core/sinks.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <regex>

// One node read as a typed value: the plain-decimal rules for integers and numbers (no octal,
// hexadecimal, NaN or infinity), true/false, non-empty strings and maps.
namespace miniapp::config {

namespace {
std::string type_name(const YAML::Node& n) {
  switch (n.Type()) {
  case YAML::NodeType::Map:
    return "a map";
  case YAML::NodeType::Sequence:
    return "a list";
  case YAML::NodeType::Null:
    return "nothing (null)";
  default:
    return (n.Tag() == "!" ? "the quoted string '" : "'") + n.Scalar() + "'";
  }
}

// A plain scalar that YAML 1.2's core schema (yaml-cpp's, and the YAML language server's that
// editors check configs with against the schemas) reads as an integer, a float, a boolean or null.
bool not_text_to_yaml(const std::string& s) {
  static const std::regex pattern("~|null|Null|NULL|true|True|TRUE|false|False|FALSE"
                                  "|[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+"
                                  "|[-+]?(\\.[0-9]+|[0-9]+(\\.[0-9]*)?)([eE][-+]?[0-9]+)?"
                                  "|[-+]?\\.(inf|Inf|INF)|\\.(nan|NaN|NAN)");
  // (std::regex recurses per character: only the characters such scalars are made of reach it,
  // at most limits::kMaxStringBytes of them)
  const bool candidate = std::all_of(s.begin(), s.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || std::strchr("~_+-.:", c);
  });
  return candidate && s.size() <= 4096 && std::regex_match(s, pattern);
}

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

// Leading '+' or '-' skipped.
size_t after_sign(const std::string& s) {
  return !s.empty() && (s[0] == '+' || s[0] == '-') ? 1 : 0;
}

// 0x1F, 0o17, 0b101 (with '_' separators), as YAML 1.1 readers take them.
bool is_prefixed_integer(const std::string& s) {
  const size_t i = after_sign(s);
  if (s.size() < i + 3 || s[i] != '0' || std::string("xXoObB").find(s[i + 1]) == std::string::npos)
    return false;
  return std::all_of(s.begin() + i + 2, s.end(), [](char c) {
    return std::isxdigit(static_cast<unsigned char>(c)) || c == '_';
  });
}

// 010 (or 0_10 when underscores count): a YAML 1.1 reader may take it as octal.
bool has_leading_zero(const std::string& s, bool underscores) {
  const size_t i = after_sign(s);
  if (s.size() < i + 2 || s[i] != '0')
    return false;
  return std::all_of(s.begin() + i + 1, s.end(),
                     [&](char c) { return is_digit(c) || (underscores && c == '_'); });
}

// [-+]?(0|[1-9][0-9]*)
bool is_decimal_integer(const std::string& s) {
  const size_t i = after_sign(s);
  if (s.size() == i || !std::all_of(s.begin() + i, s.end(), is_digit))
    return false;
  return s[i] != '0' || s.size() == i + 1;
}

// [-+]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?
bool is_decimal_number(const std::string& s) {
  size_t i = after_sign(s);
  size_t int_digits = 0, frac_digits = 0;
  while (i < s.size() && is_digit(s[i]))
    ++i, ++int_digits;
  if (i < s.size() && s[i] == '.') {
    ++i;
    while (i < s.size() && is_digit(s[i]))
      ++i, ++frac_digits;
  }
  if (int_digits == 0 && frac_digits == 0)
    return false;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-'))
      ++i;
    size_t exp_digits = 0;
    while (i < s.size() && is_digit(s[i]))
      ++i, ++exp_digits;
    if (exp_digits == 0)
      return false;
  }
  return i == s.size();
}
} // namespace

bool is_plain_scalar(const YAML::Node& n, const std::string& text) {
  // yaml-cpp tags quoted scalars "!" and plain ones "?"
  return n.IsScalar() && n.Tag() != "!" && n.Scalar() == text;
}

bool parse_decimal_int(const std::string& s, std::int64_t& out) {
  if (!is_decimal_integer(s))
    return false;
  const bool negative = s[0] == '-';
  std::uint64_t v = 0;
  const std::uint64_t limit = negative ? std::uint64_t(INT64_MAX) + 1 : std::uint64_t(INT64_MAX);
  for (size_t i = after_sign(s); i < s.size(); ++i) {
    const unsigned d = unsigned(s[i] - '0');
    if (v > (limit - d) / 10)
      return false;
    v = v * 10 + d;
  }
  out = negative ? std::int64_t(0 - v) : std::int64_t(v);
  return true;
}

std::int64_t read_int(const Source& src, const YAML::Node& n, const std::string& what) {
  if (!n.IsScalar() || n.Tag() == "!")
    src.fail(n, what + " must be an integer, got " + type_name(n));
  const std::string s = n.Scalar();
  if (is_prefixed_integer(s))
    src.fail(n, what + ": '" + s + "' is hexadecimal/octal/binary; write the value in decimal");
  if (has_leading_zero(s, true))
    src.fail(n, what + ": '" + s +
                    "' has a leading zero (YAML readers may take it as octal); "
                    "write it without the zero");
  if (!is_decimal_integer(s))
    src.fail(n, what + " must be an integer, got '" + s + "'");
  std::int64_t v = 0;
  if (!parse_decimal_int(s, v))
    src.fail(n, what + ": '" + s + "' is out of the 64-bit integer range");
  return v;
}

double read_double(const Source& src, const YAML::Node& n, const std::string& what) {
  if (!n.IsScalar() || n.Tag() == "!")
    src.fail(n, what + " must be a number, got " + type_name(n));
  std::string s = n.Scalar();
  std::string lower = s;
  std::transform(lower.begin(), lower.end(), lower.begin(), ::tolower);
  if (lower.find("nan") != std::string::npos || lower.find("inf") != std::string::npos)
    src.fail(n, what + ": '" + s + "' is not a finite number");
  if (is_prefixed_integer(s) || has_leading_zero(s, false))
    src.fail(n, what + ": '" + s + "' must be written in plain decimal");
  if (!is_decimal_number(s))
    src.fail(n, what + " must be a number, got '" + s + "'");
  const double v = std::strtod(s.c_str(), nullptr);
  if (!std::isfinite(v))
    src.fail(n, what + ": '" + s + "' is not a finite number");
  return v;
}

bool read_bool(const Source& src, const YAML::Node& n, const std::string& what) {
  if (is_plain_scalar(n, "true"))
    return true;
  if (is_plain_scalar(n, "false"))
    return false;
  src.fail(n, what + " must be true or false, got " + type_name(n));
}

std::string read_string(const Source& src, const YAML::Node& n, const std::string& what) {
  if (!n.IsScalar() || n.Scalar().empty())
    src.fail(n, what + " must be a non-empty string, got " + type_name(n));
  // The schemas (config/schema.cpp) type these as strings, and so does every YAML reader: `name:
  // 123` was accepted here and refused by the schema.
  if (n.Tag() != "!" && not_text_to_yaml(n.Scalar()))
    src.fail(n, what + " must be a string, got " + type_name(n) +
                    ", which YAML reads as a number, a boolean or null (quote it)");
  return n.Scalar();
}

std::string read_line(const Source& src, const YAML::Node& n, const std::string& what, bool tabs) {
  const std::string s = read_string(src, n, what);
  if (s.find_first_of("\n\r") != std::string::npos)
    src.fail(n, what + " must be a single line");
  std::string checked = s;
  if (tabs)
    std::replace(checked.begin(), checked.end(), '\t', ' ');
  const std::string problem = path_problem(checked);
  if (!problem.empty())
    src.fail(n, what + " " + problem);
  return s;
}

void require_map(const Source& src, const YAML::Node& n, const std::string& what) {
  if (!n.IsMap())
    src.fail(n, what + " must be a map of keys, got " + type_name(n));
}

} // namespace miniapp::config
