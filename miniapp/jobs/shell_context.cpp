#include "jobs/shell_context.hpp"

#include <cstring>
#include <deque>

namespace miniapp::jobs {

namespace {

// arith: $(( )), (( )) and $[ ]; let: the rest of a `let` command. Bash expands $( ) in them even
// inside single quotes. cond: [[ ]], whose -eq operands are arithmetic too.
enum class State {
  code,
  subst,
  single,
  ansi_c,
  dquote,
  backtick,
  param,
  comment,
  arith,
  let,
  cond
};

struct HereDoc {
  std::string delimiter;
  bool strip_tabs = false; // <<-
};

// The delimiter word of "<<WORD" at `from`: quotes and backslashes removed (bash's rule).
HereDoc heredoc_at(const std::string& s, std::size_t from) {
  HereDoc h;
  std::size_t j = from;
  if (j < s.size() && s[j] == '-') {
    h.strip_tabs = true;
    ++j;
  }
  while (j < s.size() && (s[j] == ' ' || s[j] == '\t'))
    ++j;
  for (; j < s.size() && !std::strchr(" \t\n;&|<>()", s[j]); ++j)
    if (!std::strchr("'\"\\", s[j]))
      h.delimiter += s[j];
  return h;
}

bool word_start(const std::string& s, std::size_t i) {
  return i == 0 || std::strchr(" \t\n;&|()<>", s[i - 1]) != nullptr;
}

// Whether `word` followed by a blank starts at s[i] as a word of its own.
bool word_at(const std::string& s, std::size_t i, const char* word) {
  const std::size_t n = std::strlen(word);
  return word_start(s, i) && s.compare(i, n, word) == 0 && i + n < s.size() &&
         (s[i + n] == ' ' || s[i + n] == '\t');
}

} // namespace

std::vector<ShellContext> shell_contexts(const std::string& s) {
  std::vector<ShellContext> ctx(s.size(), ShellContext::quoted);
  std::vector<State> stack = {State::code};
  // Whether the state at each level or one below it is a quoting one (kept per level, so a deep
  // nest costs no rescan per byte).
  std::vector<bool> quoted = {false};
  std::vector<int> depth; // open '(' of each $( ) and arithmetic on the stack
  std::deque<HereDoc> pending;
  const auto push = [&](State st) {
    quoted.push_back(quoted.back() || (st != State::code && st != State::subst));
    stack.push_back(st);
  };
  const auto pop = [&] {
    quoted.pop_back();
    stack.pop_back();
  };
  const auto quoted_now = [&] { return bool(quoted.back()); };
  std::size_t i = 0;
  while (i < s.size()) {
    const State top = stack.back();
    const char c = s[i];
    const char next = i + 1 < s.size() ? s[i + 1] : '\0';
    if (top == State::comment) {
      if (c == '\n') {
        pop();
        continue; // the newline is code again (and may start a here-document)
      }
      ctx[i++] = ShellContext::comment;
      continue;
    }
    ctx[i] = quoted_now() ? ShellContext::quoted : ShellContext::code;
    if (top == State::let) {
      if (c == '\n' || c == ';' || c == '&' || c == '|')
        pop(); // the character is read again, as code
      else
        ++i;
      continue;
    }
    if (top == State::arith) { // parentheses, or brackets for $[ ], counted
      if (c == '(' || c == '[')
        ++depth.back();
      else if ((c == ')' || c == ']') && --depth.back() == 0) {
        depth.pop_back();
        pop();
      }
      ++i;
      continue;
    }
    switch (top) {
    case State::single:
      if (c == '\'')
        pop();
      ++i;
      continue;
    case State::ansi_c:
    case State::backtick:
      if (c == '\\' && i + 1 < s.size()) {
        ctx[i + 1] = ShellContext::quoted;
        i += 2;
        continue;
      }
      if (c == (top == State::ansi_c ? '\'' : '`'))
        pop();
      ++i;
      continue;
    default:
      break;
    }
    // code, subst, dquote and param: escapes, quotes and expansions nest.
    if (c == '\\' && i + 1 < s.size()) {
      ctx[i + 1] = ctx[i];
      i += 2;
      continue;
    }
    if (c == '$' && (next == '[' || (next == '(' && i + 2 < s.size() && s[i + 2] == '('))) {
      ctx[i + 1] = ctx[i] = ShellContext::quoted;
      push(State::arith);
      depth.push_back(1); // the '(' or '[' after '$'; the second '(' counts itself
      i += 2;
      continue;
    }
    if (c == '$' && next == '(') {
      ctx[i + 1] = ctx[i];
      push(State::subst);
      depth.push_back(1);
      i += 2;
      continue;
    }
    if (c == '$' && next == '{') {
      ctx[i + 1] = ctx[i];
      push(State::param);
      i += 2;
      continue;
    }
    if (c == '`') {
      push(State::backtick);
      ++i;
      continue;
    }
    if (c == '"' && top == State::dquote) {
      pop();
      ++i;
      continue;
    }
    if (c == '"') {
      push(State::dquote);
      ++i;
      continue;
    }
    if (top == State::dquote) {
      ++i;
      continue;
    }
    if (top == State::cond && c == ']' && next == ']') {
      ctx[i + 1] = ctx[i];
      pop();
      i += 2;
      continue;
    }
    if (top == State::param && c == '}') {
      pop();
      ++i;
      continue;
    }
    if (c == '$' && next == '\'') {
      ctx[i + 1] = ctx[i];
      push(State::ansi_c);
      i += 2;
      continue;
    }
    if (c == '\'') {
      push(State::single);
      ++i;
      continue;
    }
    if (top == State::param || top == State::cond) {
      ++i;
      continue;
    }
    // code and subst
    if (word_start(s, i) && c == '(' && next == '(') {
      ctx[i] = ctx[i + 1] = ShellContext::quoted;
      push(State::arith);
      depth.push_back(1);
      ++i; // the second '(' counts itself
      continue;
    }
    if (word_at(s, i, "let")) {
      push(State::let);
      continue; // the 'l' is read again, quoted
    }
    if (word_at(s, i, "[[")) {
      ctx[i] = ctx[i + 1] = ShellContext::quoted;
      push(State::cond);
      i += 2;
      continue;
    }
    if (top == State::subst && c == '(') {
      ++depth.back();
    } else if (top == State::subst && c == ')') {
      if (--depth.back() == 0) {
        depth.pop_back();
        pop();
      }
    } else if (c == '#' && word_start(s, i)) {
      push(State::comment);
      ctx[i] = ShellContext::comment;
    } else if (c == '<' && next == '<' && (i + 2 >= s.size() || s[i + 2] != '<') &&
               (i == 0 || s[i - 1] != '<')) {
      pending.push_back(heredoc_at(s, i + 2));
      ctx[i + 1] = ctx[i];
      i += 2;
      continue;
    } else if (c == '\n' && !pending.empty()) {
      // The here-documents opened on this line: their bodies follow, each up to its delimiter.
      ++i;
      while (!pending.empty() && i < s.size()) {
        const HereDoc h = pending.front();
        pending.pop_front();
        while (i < s.size()) {
          std::size_t eol = s.find('\n', i);
          if (eol == std::string::npos)
            eol = s.size();
          std::size_t from = i;
          while (h.strip_tabs && from < eol && s[from] == '\t')
            ++from;
          const bool last = s.compare(from, eol - from, h.delimiter) == 0;
          for (; i < eol; ++i)
            ctx[i] = ShellContext::quoted;
          if (i < s.size())
            ctx[i++] = ShellContext::quoted;
          if (last)
            break;
        }
      }
      continue;
    }
    ++i;
  }
  return ctx;
}

} // namespace miniapp::jobs
