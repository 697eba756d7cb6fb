#include "app/commands.hpp"

#include "config/value.hpp"
#include "core/files.hpp"
#include "core/sinks.hpp"

#include <cstring>
#include <filesystem>
#include <iostream>
#include <new>

namespace miniapp {

int run_command(const std::string& command, const std::function<int()>& body,
                const Communicator* ranks) {
  int code = kRuntimeError;
  std::string message;
  try {
    return body();
  } catch (const StopSignal& s) {
    message = "interrupted by signal " + std::to_string(s.signal) + " (" + strsignal(s.signal) +
              "); the child process was stopped and temporary files removed";
  } catch (const config::ConfigError& e) {
    code = kConfigError;
    message = e.what();
  } catch (const std::filesystem::filesystem_error& e) {
    // what() repeats the paths in its own format; the parts, said once, read better.
    std::string paths = e.path1().string();
    if (!e.path2().empty())
      paths += ", " + e.path2().string();
    message = (paths.empty() ? "" : paths + ": ") + e.code().message() + " (resource: file system)";
  } catch (const std::bad_alloc&) {
    message = "out of memory (resource: host memory)";
  } catch (const std::exception& e) {
    message = e.what();
  }
  // The other ranks may wait in a collective for this one: end them all rather than hang.
  if (ranks && ranks->size() > 1)
    ranks->abort_all(code, command + ": " + message);
  // The message may quote a file's contents (a label, a JSON parser's last token): shown as text.
  std::cerr << "miniapp " << command << ": " << for_terminal(message) << std::endl;
  return code;
}

int write_user_output(const std::string& command, const std::function<void()>& write) {
  try {
    write();
    return kOk;
  } catch (const OutputRefused& e) {
    std::cerr << "miniapp " << command << ": " << for_terminal(e.what()) << "\n";
    return kConfigError;
  } catch (const std::exception& e) {
    std::cerr << "miniapp " << command << ": " << for_terminal(e.what()) << "\n";
    return kRuntimeError;
  }
}

void print_warnings(const std::string& command, const std::vector<std::string>& warnings) {
  for (const auto& w : warnings)
    std::cerr << "miniapp " << command << ": warning: " << for_terminal(w) << "\n";
}

} // namespace miniapp
