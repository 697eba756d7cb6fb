#pragma once
// Which journal the history database is written with. SQLite's WAL keeps its index in shared
// memory (the -shm file, mapped by every writer), which processes on two hosts do not share: on a
// network filesystem, writers on two nodes of a cluster, each through its own client, could both
// commit into one WAL database and corrupt it (sqlite.org/wal.html: "WAL does not work over a
// network filesystem"). There the database keeps SQLite's rollback journal, whose writers exclude
// each other by file locks alone (docs/history.md, "On a cluster").
#include <string>

namespace miniapp::history {

// The statfs(2) f_type of the filesystem holding path, or -1 when it cannot be read.
long filesystem_type(const std::string& path);

// The name of the network filesystem with that statfs f_type ("NFS", "Lustre", ...), or "" for
// any other.
std::string network_filesystem_name(long f_type);

// What the database asks for a path's filesystem type: filesystem_type, but in tests (the seam
// through which they put a database on "NFS").
extern long (*filesystem_type_probe)(const std::string& path);

// The network filesystem holding the database at path (for a new one, its directory), or "".
std::string network_filesystem_of(const std::string& path,
                                  long (*fs_type)(const std::string&) = filesystem_type_probe);

} // namespace miniapp::history
