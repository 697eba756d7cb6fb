#pragma once
// What the config stage hands the plan: typed values that remember where they were written, so
// the plan reads no YAML and still says `file:line:col: what is wrong`.
#include "config/limits.hpp"

#include <cstdint>
#include <stdexcept>
#include <string>
#include <variant>
#include <vector>

namespace miniapp::config {

struct ConfigError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// A place in the config file or in a --set text (label "--set[N] 'TEXT'").
struct Position {
  std::string label;
  int line = 1, column = 1;
  std::string str() const {
    return label + ":" + std::to_string(line) + ":" + std::to_string(column);
  }
};

// Throws ConfigError("file:line:col: message").
[[noreturn]] inline void fail(const Position& at, const std::string& message) {
  throw ConfigError(at.str() + ": " + message);
}

// The independent errors of one config, gathered so that `validate` and `run` report them all at
// once: each "file:line:col: message", up to limits::kMaxReportedErrors (then one line saying how
// many more). A check that depends on a value in error is not made (no error follows from another).
class ErrorList {
public:
  void add(const std::string& message) {
    if (messages_.size() < std::size_t(limits::kMaxReportedErrors))
      messages_.push_back(message);
    ++count_;
  }
  // Runs f; a ConfigError it throws is recorded and f's check ends there. False when it threw.
  template <class F>
  bool attempt(F&& f) {
    try {
      f();
      return true;
    } catch (const ConfigError& e) {
      add(e.what());
      return false;
    }
  }
  bool empty() const { return count_ == 0; }
  // Throws one ConfigError holding every message, one per line; nothing when there is none.
  void throw_if_any() const {
    if (empty())
      return;
    std::string all;
    for (const auto& m : messages_)
      all += (all.empty() ? "" : "\n") + m;
    if (count_ > messages_.size())
      all += "\n(" + std::to_string(count_ - messages_.size()) + " more errors not shown; the " +
             "limit is " + std::to_string(limits::kMaxReportedErrors) + ")";
    throw ConfigError(all);
  }

private:
  std::vector<std::string> messages_;
  std::size_t count_ = 0;
};

struct Auto {}; // the word 'auto' where a parameter may be searched (tile, team_size, shape)

// One scalar, read strictly for its key (config/config.cpp sweep_keys) and typed.
struct Value {
  std::variant<std::int64_t, double, bool, std::string, Auto> v;
  std::string text; // as written, for messages
  Position pos;
  bool is_auto() const { return std::holds_alternative<Auto>(v); }
  std::int64_t as_int() const { return std::get<std::int64_t>(v); }
  double as_double() const { return std::get<double>(v); }
  bool as_bool() const { return std::get<bool>(v); }
  const std::string& as_string() const { return std::get<std::string>(v); }
};

// An explicit input matrix (a, b) as written: its shape is checked by the plan, which knows the
// sizes; is_list is false where the config holds something else than a list.
struct MatrixRow {
  Position pos;
  bool is_list = false;
  std::vector<Value> values; // doubles
};
struct Matrix {
  Position pos;
  bool is_list = false;
  std::vector<MatrixRow> rows;
};

} // namespace miniapp::config
