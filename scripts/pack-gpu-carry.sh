#!/usr/bin/env bash
# Collects what a device-machine run needs into .carry/ (ignored by git): the CUDA build's
# programs, OpenMP builds for the host's cores (optional: presets gpuhost, x86-64-v4, and
# gpuhost-v3, x86-64-v3), and the shared libraries the GPU machine lacks (OpenBLAS, gfortran,
# Google Benchmark), xz-compressed to fit the transfer limit (the libraries and the test programs).
#   scripts/pack-gpu-carry.sh          the programs of build/cuda
#   scripts/pack-gpu-carry.sh --host   the host builds alone (scripts/gpu-run.sh hostgemm)
#   scripts/pack-gpu-carry.sh --mpi    miniapp of build/cuda-mpi (preset cuda-mpi: linked
#       against the CUDA-aware Open MPI of scripts/build-cuda-mpi.sh) and that Open MPI itself,
#       stripped, without headers, docs and manual pages, as .carry/mpi.tar.xz (unpacked there
#       and used through OPAL_PREFIX by scripts/maintainer/gpu-weak-scaling.sh)
# The whole .carry/ must stay under the device tool's 64 MiB; this script fails if it does not.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
build=build/cuda
programs=(miniapp miniapp-bench miniapp-tests miniapp-kernel-tests)
mpi_prefix=''
if [ "${1:-}" = --mpi ]; then
  build=build/cuda-mpi
  programs=(miniapp) # what scripts/maintainer/gpu-weak-scaling.sh runs
  mpi_prefix=$(scripts/build-cuda-mpi.sh) # the existing install (builds it if missing: long)
elif [ "${1:-}" = --host ]; then
  programs=() # build/gpuhost and build/gpuhost-v3 only, below
  [ -x build/gpuhost/bin/miniapp-bench ] || [ -x build/gpuhost-v3/bin/miniapp-bench ] || {
    echo "pack-gpu-carry.sh: neither build/gpuhost nor build/gpuhost-v3 is built" >&2
    exit 1
  }
elif [ $# -gt 0 ]; then
  echo "usage: $0 [--mpi|--host]" >&2
  exit 2
fi
# The test programs are optional (a build of miniapp, miniapp-bench and miniapp-kernel-tests alone
# is enough for the modes that run only the kernel tests: scripts/gpu-run.sh sizes); the others not.
for p in ${programs[@]+"${programs[@]}"}; do
  [ -x "$build/bin/$p" ] || case $p in
    *-tests) echo "pack-gpu-carry.sh: $build/bin/$p not built: left out" >&2 ;;
    *) echo "pack-gpu-carry.sh: $build/bin/$p missing: build it first" >&2; exit 1 ;;
  esac
done
rm -rf .carry && mkdir -p .carry/lib
if [ ${#programs[@]} -gt 0 ]; then
  mkdir -p .carry/cuda
  for p in "${programs[@]}"; do [ ! -x "$build/bin/$p" ] || cp "$build/bin/$p" .carry/cuda/; done
fi
for host in gpuhost gpuhost-v3; do
  if [ -x "build/$host/bin/miniapp-bench" ]; then
    mkdir -p ".carry/$host"
    cp "build/$host/bin/miniapp" "build/$host/bin/miniapp-bench" ".carry/$host/"
  fi
done
strip --strip-unneeded .carry/*/miniapp*
# Every CUDA program compressed (scripts/gpu-run.sh unpacks them): the working tree travels too,
# and with 25 MiB of it (docs/data, docs/img) the 44 MiB of miniapp and miniapp-bench stripped no
# longer fitted the 64 MiB beside it.
for t in miniapp miniapp-bench miniapp-tests miniapp-kernel-tests; do
  [ ! -f ".carry/cuda/$t" ] || xz -T2 -3 ".carry/cuda/$t"
done
for lib in libopenblas.so.0 libgfortran.so.5 libquadmath.so.0 libbenchmark.so.1debian libhwloc.so.15 \
  libsqlite3.so.0; do
  cp -L "/usr/lib/x86_64-linux-gnu/$lib" ".carry/lib/$lib" # -L: the library itself, under its soname
done
tar -C .carry -cJf .carry/lib.tar.xz lib && rm -rf .carry/lib
if [ -n "$mpi_prefix" ]; then
  mkdir -p .carry/mpi
  cp -a "$mpi_prefix/bin" "$mpi_prefix/lib" "$mpi_prefix/etc" .carry/mpi/
  mkdir -p .carry/mpi/share && cp -a "$mpi_prefix/share/openmpi" .carry/mpi/share/ # help texts
  rm -rf .carry/mpi/lib/pkgconfig .carry/mpi/bin/*cc .carry/mpi/bin/*c++ .carry/mpi/bin/*CC \
    .carry/mpi/bin/*cxx .carry/mpi/bin/*fort* .carry/mpi/bin/*f77 .carry/mpi/bin/*f90 \
    .carry/mpi/share/openmpi/*wrapper-data.txt
  find .carry/mpi -type f \( -name '*.so*' -o -perm -u+x \) -exec strip --strip-unneeded {} + 2>/dev/null || true
  tar -C .carry -cJf .carry/mpi.tar.xz mpi && rm -rf .carry/mpi
fi
du -sh .carry/* .carry
size=$(du -sm .carry | cut -f1)
if [ "$size" -ge 64 ]; then
  echo "pack-gpu-carry.sh: .carry is $size MiB, over the device tool's 64 MiB" >&2
  exit 1
fi
