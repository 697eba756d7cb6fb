#include "core/input_file.hpp"

#include "core/sinks.hpp"

#include <cerrno>
#include <cstring>
#include <set>
#include <vector>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace miniapp {

InputFileError::InputFileError(Why w, std::string p, const std::string& sentence)
    : std::runtime_error(for_terminal(p) + ": " + sentence), why(w), path(std::move(p)) {}

namespace {

// Closes the descriptor on every path out of the reader.
struct Descriptor {
  int fd;
  ~Descriptor() {
    if (fd >= 0)
      ::close(fd);
  }
};

const char* kind_of(mode_t mode) {
  return S_ISFIFO(mode)   ? "a FIFO"
         : S_ISDIR(mode)  ? "a directory"
         : S_ISCHR(mode)  ? "a character device"
         : S_ISBLK(mode)  ? "a block device"
         : S_ISSOCK(mode) ? "a socket"
                          : "not a regular file";
}

// "256 MiB", "320 KiB", "1000 bytes"
std::string size_text(std::uint64_t bytes) {
  if (bytes >= (1u << 20) && bytes % (1u << 20) == 0)
    return std::to_string(bytes >> 20) + " MiB";
  if (bytes >= (1u << 10) && bytes % (1u << 10) == 0)
    return std::to_string(bytes >> 10) + " KiB";
  return std::to_string(bytes) + " bytes";
}

InputFileError not_regular(const std::string& path, mode_t mode) {
  return InputFileError(InputFileError::Why::not_regular, path,
                        std::string("is ") + kind_of(mode) +
                            ", not a regular file; refused unread (it could block or never end)");
}

std::string too_large(std::uint64_t max_bytes) {
  return "larger than " + size_text(max_bytes) +
         ", the limit on this file (more than the program writes there); refused unread";
}

// nlohmann keeps the last of two values under one key without a word: a map holding a key twice
// ("status": "ok", "status": "error") was read as whichever came last. No file the program writes
// holds a key twice, so one that does was edited or damaged, and which value was meant is unknown.
// A SAX pass finds it before the document is built: the parser's callback form does it in one
// pass, but after each map it searches the whole enclosing list again (the 2,000,000 maps of
// Compare.ResultsFilesOverTheSizeLimitAreRefusedUnread ran past 15 minutes; with this pass 1.2 s).
class DuplicateKeyFinder : public nlohmann::json_sax<nlohmann::json> {
public:
  // Where the parser is: each open map with its keys so far, each open list with the index of the
  // element being read.
  struct Open {
    bool map;
    std::set<std::string> keys;
    std::string key;
    std::size_t index = 0;
  };
  // The map ("results[1]") and the key given twice; both "" when none.
  std::string twice_in, twice;

  bool null() override { return element(); }
  bool boolean(bool) override { return element(); }
  bool number_integer(number_integer_t) override { return element(); }
  bool number_unsigned(number_unsigned_t) override { return element(); }
  bool number_float(number_float_t, const string_t&) override { return element(); }
  bool string(string_t&) override { return element(); }
  bool binary(binary_t&) override { return element(); }
  bool start_object(std::size_t) override { return open(true); }
  bool start_array(std::size_t) override { return open(false); }
  bool end_object() override { return close(); }
  bool end_array() override { return close(); }
  bool key(string_t& k) override {
    if (!open_.back().keys.insert(k).second) {
      twice_in = place_of_last();
      twice = k;
      return false; // stops the pass
    }
    open_.back().key = k;
    return true;
  }
  bool parse_error(std::size_t, const std::string&, const nlohmann::json::exception&) override {
    return false; // the parse that follows reports it, with its position
  }

private:
  bool element() {
    if (!open_.empty() && !open_.back().map)
      ++open_.back().index;
    return true;
  }
  bool open(bool map) {
    open_.push_back({map, {}, {}, 0});
    return true;
  }
  bool close() {
    open_.pop_back();
    return element();
  }
  std::string place_of_last() const {
    std::string where;
    for (std::size_t i = 0; i + 1 < open_.size(); ++i)
      where += open_[i].map ? (where.empty() ? "" : ".") + open_[i].key
                            : "[" + std::to_string(open_[i].index) + "]";
    return where.empty() ? "the top-level map" : where;
  }
  std::vector<Open> open_;
};

nlohmann::json parse_refusing_duplicate_keys(const std::string& text, const std::string& source) {
  DuplicateKeyFinder finder;
  nlohmann::json::sax_parse(text, &finder);
  if (!finder.twice_in.empty())
    throw InputFileError(InputFileError::Why::duplicate_key, source,
                         for_terminal(finder.twice_in) + " has the key '" +
                             for_terminal(finder.twice.substr(0, 1024)) +
                             "' twice; the program writes each key once, so the file was edited "
                             "or damaged and which value was meant is unknown");
  return nlohmann::json::parse(text);
}

} // namespace

std::string read_regular_file(const std::string& path, std::uint64_t max_bytes) {
  using Why = InputFileError::Why;
  Descriptor d{::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)};
  if (d.fd < 0)
    throw InputFileError(errno == ENOENT ? Why::missing : Why::unreadable, path,
                         std::string("cannot open: ") + std::strerror(errno));
  struct stat st {};
  if (::fstat(d.fd, &st) != 0)
    throw InputFileError(Why::unreadable, path,
                         std::string("cannot stat: ") + std::strerror(errno));
  if (!S_ISREG(st.st_mode))
    throw not_regular(path, st.st_mode);
  if (std::uint64_t(st.st_size) > max_bytes)
    throw InputFileError(Why::too_large, path, too_large(max_bytes));
  std::string text;
  char chunk[1 << 16];
  for (;;) {
    const ssize_t n = ::read(d.fd, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0)
      throw InputFileError(Why::unreadable, path,
                           std::string("cannot read: ") + std::strerror(errno));
    if (n == 0)
      return text;
    if (text.size() + std::size_t(n) > max_bytes) // grew after the fstat
      throw InputFileError(Why::too_large, path, too_large(max_bytes));
    text.append(chunk, std::size_t(n));
  }
}

nlohmann::json parse_json_bounded(const std::string& text, const std::string& source, int max_depth,
                                  std::uint64_t max_containers) {
  using Why = InputFileError::Why;
  int depth = 0;
  std::uint64_t containers = 0;
  bool in_string = false, escaped = false;
  for (const char ch : text) {
    if (in_string) {
      if (escaped)
        escaped = false;
      else if (ch == '\\')
        escaped = true;
      else if (ch == '"')
        in_string = false;
    } else if (ch == '"') {
      in_string = true;
    } else if (ch == '[' || ch == '{') {
      if (++depth > max_depth)
        throw InputFileError(Why::not_json, source,
                             "JSON nested deeper than " + std::to_string(max_depth) +
                                 " levels; not a file this program wrote");
      if (++containers > max_containers)
        throw InputFileError(Why::not_json, source,
                             "more than " + std::to_string(max_containers) +
                                 " JSON maps and lists; not a file this program wrote");
    } else if (ch == ']' || ch == '}') {
      --depth;
    }
  }
  try {
    return parse_refusing_duplicate_keys(text, source);
  } catch (const nlohmann::json::exception& e) {
    throw InputFileError(Why::not_json, source, "not valid JSON (" + std::string(e.what()) + ")");
  }
}

void refuse_unless_regular(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode))
    throw not_regular(path, st.st_mode);
}

nlohmann::json read_json_file(const std::string& path, std::uint64_t max_bytes, int max_depth,
                              std::uint64_t max_containers) {
  return parse_json_bounded(read_regular_file(path, max_bytes), path, max_depth, max_containers);
}

} // namespace miniapp
