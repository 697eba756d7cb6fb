#include "core/files.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>

namespace miniapp {

bool path_exists(const std::string& p) {
  struct stat st {};
  return ::stat(p.c_str(), &st) == 0;
}
bool is_dir(const std::string& p) {
  struct stat st {};
  return ::stat(p.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}
bool is_file(const std::string& p) {
  struct stat st {};
  return ::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}
void make_dirs(const std::string& path) {
  std::string cur;
  std::stringstream ss(path);
  if (!path.empty() && path[0] == '/')
    cur = "/";
  for (std::string part; std::getline(ss, part, '/');) {
    if (part.empty())
      continue;
    cur += part + "/";
    if (::mkdir(cur.c_str(), 0755) != 0 && errno != EEXIST)
      throw std::runtime_error("cannot create directory " + cur + ": " + std::strerror(errno));
  }
}

std::string disk_error(const std::string& what, const std::string& path, int err) {
  return "cannot " + what + " " + path + ": " + std::strerror(err) + " (resource: disk)";
}

// write(2) until done; false with errno set on failure.
bool write_all(int fd, const char* data, std::size_t size) {
  while (size > 0) {
    const ssize_t n = ::write(fd, data, size);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return false;
    data += n;
    size -= std::size_t(n);
  }
  return true;
}

namespace {
// Writes content to tmp (opened with open_flags, never through a symlink), then renames it onto
// path: readers see the old file or the new one, never a part. The temp file goes on failure.
void write_then_rename(const std::string& path, const std::string& tmp, const std::string& content,
                       int open_flags, mode_t mode) {
  const int fd =
      ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC | open_flags, mode);
  if (fd < 0)
    throw std::runtime_error(disk_error("create", tmp, errno));
  const bool written = write_all(fd, content.data(), content.size());
  const int write_errno = errno;
  // close() reports delayed write errors (NFS, quotas).
  if (::close(fd) != 0 || !written) {
    const int err = written ? errno : write_errno;
    ::unlink(tmp.c_str());
    throw std::runtime_error(disk_error("write", path, err));
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    ::unlink(tmp.c_str());
    throw std::runtime_error(disk_error("rename " + tmp + " to", path, err));
  }
}
} // namespace

void write_file_atomically(const std::string& path, const std::string& content) {
  write_then_rename(path, path + ".tmp." + std::to_string(::getpid()), content, O_TRUNC, 0644);
}

void write_output_file(const std::string& path, const std::string& content,
                       const std::vector<std::string>& inputs, bool executable) {
  struct stat out {};
  if (::lstat(path.c_str(), &out) == 0) {
    if (S_ISLNK(out.st_mode))
      throw OutputRefused(path + " is a symbolic link; refusing to write through it (remove it "
                                 "or choose another file)");
    if (!S_ISREG(out.st_mode))
      throw OutputRefused(path + " exists and is not a regular file; refusing to write to it");
    std::vector<std::string> read;
    for (const auto& in : inputs) {
      struct stat st {};
      if (::stat(in.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
        read.push_back(in + "/results.json");
        read.push_back(in + "/results.csv");
      } else {
        read.push_back(in);
      }
    }
    for (const auto& in : read) {
      struct stat st {};
      if (::stat(in.c_str(), &st) == 0 && st.st_dev == out.st_dev && st.st_ino == out.st_ino)
        throw OutputRefused(path + " is an input (" + in +
                            "); refusing to overwrite it: choose another output file");
    }
  }
  const mode_t mode = executable ? 0777 : 0666; // less the umask
  write_then_rename(path, path + ".tmp." + std::to_string(::getpid()), content, O_EXCL, mode);
}

} // namespace miniapp
