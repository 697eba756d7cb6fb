#!/usr/bin/env bash
# Builds and installs Kokkos 3.4.01 for one backend, from Debian's `trilinos` 13.2.0-4 source package
# (the only Kokkos source the project's machines can reach; see shared/notes/kokkos-from-debian.md).
#
#   scripts/build-kokkos.sh [--bounds-check] BACKEND [PREFIX]
#     BACKEND  openmp (OpenMP + Serial, g++) | serial (Serial, g++)
#              | cuda (CUDA + Serial, nvcc_wrapper; arch from MINIAPP_CUDA_ARCH, default HOPPER90)
#              | hip  (HIP + Serial, hipcc; arch from MINIAPP_HIP_ARCH, default VEGA908)
#     --bounds-check  Kokkos_ENABLE_DEBUG_BOUNDS_CHECK=ON: every View access is checked and an
#              out-of-bounds one aborts (slow; for the bounds-check tests, docs/testing.md)
#     PREFIX   default ${MINIAPP_DEPS_DIR:-$HOME/.cache/miniapp}/kokkos-3.4.01-<backend>[-<cuda arch, lowercase>][-boundscheck]
#
# The last line of stdout is the install prefix (CMake reads it; pass it as Kokkos_ROOT).
# A prefix that already holds lib/cmake/Kokkos/KokkosConfig.cmake is never rebuilt.
# The source tarball is downloaded once per machine into ${MINIAPP_DEPS_DIR:-$HOME/.cache/miniapp}/src/.
# cmake/kokkos-patches/cuda/*.patch (fixes for CUDA 13 and a HOPPER90 arch) are applied for cuda only.
set -euo pipefail

readonly KOKKOS_VERSION=3.4.01
readonly TRILINOS_DEB_VERSION=13.2.0-4
readonly ORIG_TARBALL=trilinos_13.2.0.orig.tar.gz
readonly KNOWN_BACKENDS="openmp serial cuda hip"

me=build-kokkos.sh
repo_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
deps_dir=${MINIAPP_DEPS_DIR:-$HOME/.cache/miniapp}

die() { echo "$me: $*" >&2; exit 1; }
log() { echo "$me: $*" >&2; }

usage() {
  echo "usage: $me [--bounds-check] BACKEND [PREFIX]   (BACKEND: ${KNOWN_BACKENDS// /, }; env MINIAPP_CUDA_ARCH, MINIAPP_HIP_ARCH, MINIAPP_DEPS_DIR)" >&2
}

bounds_check=''
if [ "${1:-}" = --bounds-check ]; then bounds_check=1; shift; fi
if [ $# -lt 1 ] || [ $# -gt 2 ]; then usage; exit 2; fi
backend=$1
case "$backend" in
  openmp|serial|cuda|hip) ;;
  *) die "unknown backend '$backend': use one of ${KNOWN_BACKENDS// /, }." ;;
esac

# --- Architecture (cuda, hip) -------------------------------------------------------------------
arch=''
sm=''
if [ "$backend" = cuda ]; then
  arch=$(echo "${MINIAPP_CUDA_ARCH:-HOPPER90}" | tr '[:lower:]' '[:upper:]')
  case "$arch" in
    KEPLER30) sm=30 ;; KEPLER32) sm=32 ;; KEPLER35) sm=35 ;; KEPLER37) sm=37 ;;
    MAXWELL50) sm=50 ;; MAXWELL52) sm=52 ;; MAXWELL53) sm=53 ;;
    PASCAL60) sm=60 ;; PASCAL61) sm=61 ;; VOLTA70) sm=70 ;; VOLTA72) sm=72 ;; TURING75) sm=75 ;;
    AMPERE80) sm=80 ;; AMPERE86) sm=86 ;; HOPPER90) sm=90 ;;
    *) die "unknown MINIAPP_CUDA_ARCH '$arch': use a Kokkos arch name such as TURING75, AMPERE80, AMPERE86 or HOPPER90." ;;
  esac
elif [ "$backend" = hip ]; then
  arch=$(echo "${MINIAPP_HIP_ARCH:-VEGA908}" | tr '[:lower:]' '[:upper:]')
  case "$arch" in
    VEGA900|VEGA906|VEGA908) ;;
    *) die "unknown MINIAPP_HIP_ARCH '$arch': Kokkos $KOKKOS_VERSION knows VEGA900, VEGA906 and VEGA908." ;;
  esac
fi

# --- Prefix; an existing complete install is reused as is ---------------------------------------
suffix=$backend
[ "$backend" = cuda ] && suffix=$backend-$(echo "$arch" | tr '[:upper:]' '[:lower:]')
[ -n "$bounds_check" ] && suffix=$suffix-boundscheck
prefix=${2:-$deps_dir/kokkos-$KOKKOS_VERSION-$suffix}
case "$prefix" in /*) ;; *) prefix=$PWD/$prefix ;; esac
prefix=${prefix%/}

installed() { [ -f "$1/lib/cmake/Kokkos/KokkosConfig.cmake" ] || [ -f "$1/lib64/cmake/Kokkos/KokkosConfig.cmake" ]; }
if installed "$prefix"; then
  if [ -n "$arch" ] && ! grep -qs "^SET(Kokkos_ARCH .*\b$arch\b" "$prefix"/lib*/cmake/Kokkos/KokkosConfigCommon.cmake; then
    log "warning: $prefix exists and is reused as is, but was not built for $arch: remove it to rebuild."
  fi
  echo "$prefix"
  exit 0
fi
if [ -d "$prefix" ] && [ -z "$(ls -A "$prefix")" ]; then
  rmdir "$prefix"   # an empty directory made in advance: the install replaces it
fi
if [ -e "$prefix" ]; then
  die "$prefix exists but holds no lib/cmake/Kokkos/KokkosConfig.cmake (an unfinished install?): remove it or pass another PREFIX."
fi

# --- Tools ---------------------------------------------------------------------------------------
command -v cmake >/dev/null || die "cmake not found: install Debian's cmake package (scripts/install-deps.sh)."
case "$backend" in
  openmp|serial)
    command -v g++ >/dev/null || die "g++ not found: install Debian's g++ (build-essential) package (scripts/install-deps.sh)."
    cxx=$(command -v g++) ;;
  cuda)
    command -v g++ >/dev/null || die "g++ (the host compiler nvcc_wrapper uses) not found: install Debian's build-essential package."
    if ! command -v nvcc >/dev/null; then
      [ -x /usr/local/cuda/bin/nvcc ] || die "nvcc not found: install the CUDA toolkit or put its bin directory (e.g. /usr/local/cuda/bin) on PATH."
      export PATH=/usr/local/cuda/bin:$PATH   # nvcc_wrapper and CMake's CUDAToolkit both look up nvcc on PATH
    fi ;;
  hip)
    command -v hipcc >/dev/null || die "hipcc not found: install Debian's hipcc and libamdhip64-dev packages (scripts/install-deps.sh --gpu) or put hipcc on PATH."
    cxx=$(command -v hipcc) ;;
esac
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)

work=$(mktemp -d "${TMPDIR:-/tmp}/build-kokkos-$backend.XXXXXX")
stage=
cleanup() {
  rm -rf "$work"
  if [ -n "$stage" ]; then rm -rf "$stage"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

# --- Source: the trilinos orig tarball, downloaded once per machine ------------------------------
# shellcheck source=scripts/debian-source.sh
. "$repo_root/scripts/debian-source.sh"
src_cache=$deps_dir/src
tarball=$src_cache/$ORIG_TARBALL
fetch_debian_source "trilinos=$TRILINOS_DEB_VERSION" "$ORIG_TARBALL" "$src_cache" "$work" ||
  die "could not fetch Kokkos (about 166 MB of trilinos sources): point Kokkos_ROOT at an installed Kokkos $KOKKOS_VERSION or newer instead."

log "extracting packages/kokkos from $tarball"
tar -xzf "$tarball" -C "$work" --wildcards '*/packages/kokkos/*' ||
  die "could not extract packages/kokkos from $tarball: delete that file so that it is downloaded again."
kokkos_src=$(echo "$work"/*/packages/kokkos)
[ -f "$kokkos_src/CMakeLists.txt" ] || die "no packages/kokkos/CMakeLists.txt in $tarball: delete that file so that it is downloaded again."

# --- Backend configuration -------------------------------------------------------------------------
cmake_args=(-DKokkos_ENABLE_SERIAL=ON)
[ -n "$bounds_check" ] && cmake_args+=(-DKokkos_ENABLE_DEBUG_BOUNDS_CHECK=ON)
case "$backend" in
  openmp) cmake_args+=(-DKokkos_ENABLE_OPENMP=ON "-DCMAKE_CXX_COMPILER=$cxx") ;;
  serial) cmake_args+=("-DCMAKE_CXX_COMPILER=$cxx") ;;
  hip)    cmake_args+=(-DKokkos_ENABLE_HIP=ON "-DKokkos_ARCH_$arch=ON" "-DCMAKE_CXX_COMPILER=$cxx") ;;
  cuda)
    for p in "$repo_root"/cmake/kokkos-patches/cuda/*.patch; do
      [ -f "$p" ] || continue
      log "applying $(basename "$p")"
      patch -p1 --forward --batch --quiet -d "$kokkos_src" < "$p" >&2 ||
        die "patch $p does not apply to Kokkos $KOKKOS_VERSION: regenerate it against the pristine sources (see cmake/kokkos-patches/README.md)."
    done
    # nvcc 13 rejects nvcc_wrapper's hard-coded default sm_35: default to the selected arch instead.
    sed -i "s/^default_arch=\"sm_[0-9]*\"/default_arch=\"sm_$sm\"/" "$kokkos_src/bin/nvcc_wrapper"
    grep -q "^default_arch=\"sm_$sm\"" "$kokkos_src/bin/nvcc_wrapper" ||
      die "could not set default_arch in $kokkos_src/bin/nvcc_wrapper: check the sed in $me against Kokkos $KOKKOS_VERSION."
    cmake_args+=(-DKokkos_ENABLE_CUDA=ON -DKokkos_ENABLE_CUDA_LAMBDA=ON "-DKokkos_ARCH_$arch=ON"
      "-DCMAKE_CXX_COMPILER=$kokkos_src/bin/nvcc_wrapper" "-DCMAKE_CXX_FLAGS=-arch=sm_$sm") ;;
esac

# --- Build, install into a staging directory (DESTDIR), then move it into place ---------------------
# Configured for the final prefix, so that the paths the installed CMake files hold are the final ones.
stage=$prefix.tmp-$$
mkdir -p "$(dirname "$prefix")"
log "configuring Kokkos $KOKKOS_VERSION ($backend${arch:+, $arch}${bounds_check:+, bounds check}) for $prefix"
cmake -S "$kokkos_src" -B "$work/build" "${generator[@]}" \
  -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_STANDARD=17 -DCMAKE_CXX_EXTENSIONS=OFF \
  -DBUILD_SHARED_LIBS=OFF -DKokkos_ENABLE_TESTS=OFF -DKokkos_ENABLE_EXAMPLES=OFF \
  -DCMAKE_INSTALL_PREFIX="$prefix" -DCMAKE_INSTALL_LIBDIR=lib \
  "${cmake_args[@]}" >&2 || die "configuring Kokkos failed (see the CMake output above)."
cmake --build "$work/build" -j2 >&2 || die "building Kokkos failed (see the compiler output above)."
DESTDIR=$stage cmake --install "$work/build" >&2 || die "installing Kokkos into $stage failed."
staged=$stage$prefix
installed "$staged" || die "the install in $staged has no lib/cmake/Kokkos/KokkosConfig.cmake."
# The CMake package records the compiler it was built with (Kokkos_CXX_COMPILER, used by its compile
# launcher); for cuda that is the nvcc_wrapper of the temporary source tree: point it at the installed copy.
if [ "$backend" = cuda ]; then
  grep -rl --null "$kokkos_src/bin/nvcc_wrapper" "$staged" | xargs -0 -r sed -i "s|$kokkos_src/bin/nvcc_wrapper|$prefix/bin/nvcc_wrapper|g"
fi
if grep -rlI "$work" "$staged" >&2; then
  die "the files above still name the temporary build directory $work: fix $me before using this install."
fi
mv -T "$staged" "$prefix" || die "could not move $staged to $prefix."
rm -rf "$stage"
stage=''
echo "$prefix"
