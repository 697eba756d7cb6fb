#pragma once
// Writing files so that nothing is lost or half-written: a temporary file and a rename (readers
// see the old file or the new one), never through a symbolic link, with errors that name the
// resource (disk). Used for results, output files the user names, and the autotune cache.
#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

namespace miniapp {

bool path_exists(const std::string& path);
bool is_dir(const std::string& path);    // a directory (symbolic links followed)
bool is_file(const std::string& path);   // a regular file (symbolic links followed)
void make_dirs(const std::string& path); // mkdir -p; throws std::runtime_error
// "cannot WHAT PATH: strerror (resource: disk)"
std::string disk_error(const std::string& what, const std::string& path, int err);
// write(2) until done; false with errno set on failure. Async-signal-safe.
bool write_all(int fd, const char* data, std::size_t size);

// path's content replaced through path.tmp.PID and a rename. Throws std::runtime_error.
void write_file_atomically(const std::string& path, const std::string& content);

// Thrown for a requested output file that must not be written (an input, a symbolic link, not a
// regular file): a usage error, exit 2.
struct OutputRefused : std::runtime_error {
  using std::runtime_error::runtime_error;
};
// Writes a file the user named (compare -o, jobscript -o): refused onto any of `inputs` (a file,
// or a run directory's results.json/results.csv), onto a symbolic link or a non-regular file;
// written through a new temporary file and a rename, so a failure leaves the old file as it was.
void write_output_file(const std::string& path, const std::string& content,
                       const std::vector<std::string>& inputs, bool executable);

} // namespace miniapp
