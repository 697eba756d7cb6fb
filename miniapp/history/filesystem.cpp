#include "history/filesystem.hpp"

#include <cstdint>
#include <filesystem>
#include <sys/vfs.h>
#include <utility>

namespace miniapp::history {

long filesystem_type(const std::string& path) {
  struct statfs fs {};
  return ::statfs(path.c_str(), &fs) == 0 ? long(fs.f_type) : -1;
}

long (*filesystem_type_probe)(const std::string& path) = filesystem_type;

std::string network_filesystem_name(long f_type) {
  // statfs(2) magic numbers (linux/magic.h; Lustre, GPFS and BeeGFS from their clients).
  static const std::pair<std::uint32_t, const char*> kNetwork[] = {
      {0x6969, "NFS"},        {0x517B, "SMB"},        {0xFF534D42, "CIFS"},
      {0xFE534D42, "SMB2"},   {0x0BD00BD0, "Lustre"}, {0x47504653, "GPFS"},
      {0x19830326, "BeeGFS"}, {0x00C36400, "CephFS"}, {0x5346414F, "AFS"},
  };
  for (const auto& [magic, name] : kNetwork)
    if (std::uint32_t(f_type) == magic)
      return name;
  return "";
}

std::string network_filesystem_of(const std::string& path, long (*fs_type)(const std::string&)) {
  std::error_code ec;
  std::string where = path;
  if (!std::filesystem::exists(path, ec)) {
    where = std::filesystem::path(path).parent_path().string();
    if (where.empty())
      where = ".";
  }
  return network_filesystem_name(fs_type(where));
}

} // namespace miniapp::history
