#include "core/process.hpp"

#include <cerrno>
#include <fstream>
#include <signal.h>
#include <sstream>
#include <string>

namespace miniapp {

std::uint64_t process_start_ticks(long pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (pid <= 0 || !std::getline(stat, line))
    return 0;
  const auto close = line.rfind(')'); // the command name may hold spaces and parentheses
  if (close == std::string::npos || close + 2 > line.size())
    return 0;
  std::istringstream rest(line.substr(close + 2));
  std::string field;
  for (int i = 3; i < 22 && rest >> field; ++i) {
  }
  std::uint64_t ticks = 0;
  return rest >> ticks ? ticks : 0;
}

bool process_running(long pid, std::uint64_t start_ticks) {
  if (pid <= 0 || pid > 0x7fffffff || (::kill(pid_t(pid), 0) != 0 && errno != EPERM))
    return false;
  const std::uint64_t now = process_start_ticks(pid);
  return now == 0 || now == start_ticks; // without /proc, the id alone
}

} // namespace miniapp
