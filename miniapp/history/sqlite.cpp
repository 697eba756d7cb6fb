#include "history/sqlite.hpp"

#include <cstdio>
#include <sys/stat.h>

namespace miniapp::sqlite {

std::string file_state(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0)
    return "";
  return std::to_string(st.st_dev) + ":" + std::to_string(st.st_ino) + ":" +
         std::to_string(st.st_size) + ":" + std::to_string(st.st_mtim.tv_sec) + "." +
         std::to_string(st.st_mtim.tv_nsec) + ":" + std::to_string(st.st_ctim.tv_sec) + "." +
         std::to_string(st.st_ctim.tv_nsec);
}

std::string read_only_uri(const std::string& path, bool immutable) {
  std::string uri = path.compare(0, 1, "/") == 0 ? "file://" : "file:";
  for (const char ch : path) {
    if (ch == '%' || ch == '?' || ch == '#') {
      char hex[4];
      std::snprintf(hex, sizeof hex, "%%%02X", static_cast<unsigned char>(ch));
      uri += hex;
    } else {
      uri += ch;
    }
  }
  return uri + "?mode=ro" + (immutable ? "&immutable=1" : "");
}

} // namespace miniapp::sqlite
