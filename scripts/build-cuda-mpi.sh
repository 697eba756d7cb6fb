#!/usr/bin/env bash
# Builds and installs a CUDA-aware Open MPI 4.1.4 from Debian's `openmpi` 4.1.4-3 source package
# (fetched with apt's own client, like Kokkos in build-kokkos.sh; nothing prebuilt is downloaded).
# It is what `mpi.transport: device_mpi` needs on a machine whose MPI is not CUDA-aware
# (docs/mpi.md): MPI calls on device buffers, over CUDA IPC between the ranks of one node (smcuda).
#
#   scripts/build-cuda-mpi.sh [PREFIX]
#     PREFIX  default ${MINIAPP_DEPS_DIR:-$HOME/.cache/miniapp}/openmpi-4.1.4-cuda
#   env CUDA_HOME  the CUDA toolkit (default /usr/local/cuda); only its cuda.h is read: Open MPI
#                  opens the driver's libcuda.so.1 at run time, so this builds on a machine without a GPU.
#
# The last line of stdout is the install prefix (pass it to CMake as MPI_HOME, see docs/mpi.md).
# A prefix whose ompi_info already reports CUDA support is never rebuilt.
# Relocatable: copied elsewhere (e.g. by scripts/pack-gpu-carry.sh --mpi), it runs with
# OPAL_PREFIX=<new place>, <new place>/bin on PATH and <new place>/lib on LD_LIBRARY_PATH.
# Built with its own hwloc, libevent and PMIx, without Fortran, OpenSHMEM, ROMIO, UCX or verbs, so
# it needs nothing on the target machine beyond glibc and the CUDA driver. Takes about 20-30 minutes
# on 2 cores (run it with `nice -n 19` on a shared machine).
set -euo pipefail

readonly OMPI_VERSION=4.1.4
readonly OMPI_DEB_VERSION=4.1.4-3
readonly ORIG_TARBALL=openmpi_$OMPI_VERSION.orig.tar.xz

me=build-cuda-mpi.sh
repo_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
deps_dir=${MINIAPP_DEPS_DIR:-$HOME/.cache/miniapp}
cuda_home=${CUDA_HOME:-/usr/local/cuda}

die() { echo "$me: $*" >&2; exit 1; }
log() { echo "$me: $*" >&2; }

if [ $# -gt 1 ] || [ "${1:-}" = -h ] || [ "${1:-}" = --help ]; then
  echo "usage: $me [PREFIX]   (env CUDA_HOME, MINIAPP_DEPS_DIR)" >&2
  exit 2
fi
prefix=${1:-$deps_dir/openmpi-$OMPI_VERSION-cuda}
case "$prefix" in /*) ;; *) prefix=$PWD/$prefix ;; esac
prefix=${prefix%/}

cuda_aware() { # prints nothing, succeeds when the Open MPI in $1 reports CUDA support
  OPAL_PREFIX=$1 LD_LIBRARY_PATH="$1/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "$1/bin/ompi_info" --parsable --all 2>/dev/null |
    grep -q '^mca:mpi:base:param:mpi_built_with_cuda_support:value:true$'
}
if [ -x "$prefix/bin/ompi_info" ] && cuda_aware "$prefix"; then
  echo "$prefix"
  exit 0
fi
if [ -e "$prefix" ]; then
  die "$prefix exists but holds no CUDA-aware Open MPI (an unfinished install?): remove it or pass another PREFIX."
fi

[ -f "$cuda_home/include/cuda.h" ] || die "no $cuda_home/include/cuda.h: install the CUDA toolkit or set CUDA_HOME to it."
for tool in gcc g++ make perl; do
  command -v "$tool" >/dev/null || die "$tool not found: install Debian's build-essential package (scripts/install-deps.sh)."
done

work=$(mktemp -d "${TMPDIR:-/tmp}/build-cuda-mpi.XXXXXX")
stage=
cleanup() {
  rm -rf "$work"
  if [ -n "$stage" ]; then rm -rf "$stage"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

# shellcheck source=scripts/debian-source.sh
. "$repo_root/scripts/debian-source.sh"
src_cache=$deps_dir/src
fetch_debian_source "openmpi=$OMPI_DEB_VERSION" "$ORIG_TARBALL" "$src_cache" "$work" ||
  die "could not fetch the Open MPI sources (about 7 MB)."
log "extracting $src_cache/$ORIG_TARBALL"
tar -xJf "$src_cache/$ORIG_TARBALL" -C "$work" || die "could not extract $src_cache/$ORIG_TARBALL: delete it so that it is downloaded again."
src=$work/openmpi-$OMPI_VERSION
[ -x "$src/configure" ] || die "no openmpi-$OMPI_VERSION/configure in $src_cache/$ORIG_TARBALL: delete it so that it is downloaded again."

log "configuring Open MPI $OMPI_VERSION with CUDA ($cuda_home) for $prefix"
mkdir -p "$work/build"
(cd "$work/build" && "$src/configure" --prefix="$prefix" \
  --with-cuda="$cuda_home" \
  --enable-shared --disable-static \
  --disable-mpi-fortran --disable-oshmem --disable-io-romio --disable-mpi-java \
  --with-hwloc=internal --with-libevent=internal --with-pmix=internal \
  --without-ucx --without-verbs --without-ofi --without-psm --without-psm2 --without-portals4 \
  --without-knem --without-xpmem --without-lustre --without-gpfs \
  > "$work/configure.log" 2>&1) || { tail -40 "$work/configure.log" >&2; die "configuring Open MPI failed (above: the end of its log)."; }
grep -q '^#define OPAL_CUDA_SUPPORT 1' "$work/build/opal/include/opal_config.h" ||
  die "Open MPI's configure did not enable CUDA support (see $work/configure.log)."
log "building (make -j2)"
make -C "$work/build" -j2 > "$work/make.log" 2>&1 || { grep -B2 -A8 -m5 -E 'error|Error' "$work/make.log" >&2; die "building Open MPI failed."; }

stage=$prefix.tmp-$$
make -C "$work/build" install DESTDIR="$stage" > "$work/install.log" 2>&1 || { tail -20 "$work/install.log" >&2; die "installing Open MPI into $stage failed."; }
staged=$stage$prefix
find "$staged" -name '*.la' -delete   # libtool archives name the build paths; nothing here links with libtool
cuda_aware "$staged" || die "the staged Open MPI's ompi_info does not report mpi_built_with_cuda_support:value:true."
mkdir -p "$(dirname "$prefix")"
mv -T "$staged" "$prefix" || die "could not move $staged to $prefix."
rm -rf "$stage"
stage=''
echo "$prefix"
