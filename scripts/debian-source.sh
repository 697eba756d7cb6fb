# shellcheck shell=bash
# Sourced by the scripts that build a dependency from a Debian source package (build-kokkos.sh,
# build-cuda-mpi.sh): fetches one file of a source package with apt's own client, from the Debian
# mirror the system's apt configuration already names, without touching that configuration.
#
#   fetch_debian_source PACKAGE=VERSION FILE DEST_DIR WORK_DIR
#     Downloads PACKAGE=VERSION's source files into WORK_DIR and moves FILE (e.g. the orig tarball)
#     to DEST_DIR/FILE; an existing DEST_DIR/FILE is kept as is. Returns non-zero with a message on
#     stderr when apt-get or the mirror is missing or the download fails.

# Prints "URI [signed-by]" of the first configured Debian archive serving suite $1, from the system's
# own apt configuration (deb822 *.sources first, then one-line *.list / sources.list).
debian_mirror() {
  local suite=$1 f
  for f in /etc/apt/sources.list.d/*.sources; do
    [ -f "$f" ] || continue
    awk -v suite="$suite" '
      function flush() {
        if (!found && uris != "" && enabled != "no" && (" " types " ") ~ / deb / && (" " suites " ") ~ (" " suite " ")) {
          split(uris, u, " "); print u[1] ((signedby ~ /^\//) ? " " signedby : ""); found = 1
        }
        types = suites = uris = signedby = enabled = ""
      }
      /^#/ { next }
      /^[ \t]*$/ { flush(); next }
      /^[A-Za-z-]+:/ {
        key = tolower(substr($0, 1, index($0, ":") - 1)); val = substr($0, index($0, ":") + 1)
        gsub(/^[ \t]+|[ \t]+$/, "", val)
        if (key == "types") types = val; else if (key == "uris") uris = val
        else if (key == "suites") suites = val; else if (key == "signed-by") signedby = val
        else if (key == "enabled") enabled = tolower(val)
      }
      END { flush() }' "$f" | head -n1
  done
  for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
    [ -f "$f" ] || continue
    sed -e 's/#.*//' -e 's/\[[^]]*\]//' "$f" | awk -v suite="$suite" '$1 == "deb" && $3 == suite { print $2; exit }'
  done
}

fetch_debian_source() {
  local spec=$1 file=$2 dest=$3 work=$4 codename mirror signedby opts apt_dir
  [ -f "$dest/$file" ] && return 0
  command -v apt-get >/dev/null || { echo "apt-get not found: Debian's source archive must be reachable to fetch $spec." >&2; return 1; }
  # shellcheck disable=SC1091
  codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
  [ -n "$codename" ] || codename=bookworm
  read -r mirror signedby < <(debian_mirror "$codename"; echo) || true
  if [ -z "${mirror:-}" ]; then
    echo "no Debian mirror for '$codename' in /etc/apt/sources.list{,.d}: Debian's source archive must be reachable to fetch $spec." >&2
    return 1
  fi
  apt_dir=$work/apt
  mkdir -p "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial" "$apt_dir/dl" "$dest"
  opts=""
  [ -n "${signedby:-}" ] && opts=" [signed-by=$signedby]"
  echo "deb-src$opts $mirror $codename main" > "$apt_dir/sources.list"
  chmod -R a+rX "$work"; chmod a+rwx "$apt_dir/dl"   # apt downloads as user _apt when run as root
  local apt_opts=(-o "Dir::Etc::SourceList=$apt_dir/sources.list" -o Dir::Etc::SourceParts=/dev/null
    -o "Dir::State::Lists=$apt_dir/lists" -o "Dir::Cache=$apt_dir/cache")
  echo "downloading $spec sources from $mirror, once per machine" >&2
  if ! { apt-get "${apt_opts[@]}" -qq update >&2 &&
         (cd "$apt_dir/dl" && apt-get "${apt_opts[@]}" -q source --download-only "$spec" >&2); } ||
     [ ! -f "$apt_dir/dl/$file" ]; then
    echo "apt-get source $spec failed: Debian's source archive ($mirror) must be reachable." >&2
    return 1
  fi
  mv "$apt_dir/dl/$file" "$dest/$file.part-$$" && mv "$dest/$file.part-$$" "$dest/$file"
}
