#!/usr/bin/env bash
# Collects what a device-machine run needs into .carry/ (ignored by git): the CUDA build's
# programs, an OpenMP build for the host's cores (optional), and the shared libraries the GPU
# machine lacks (OpenBLAS, gfortran, Google Benchmark), xz-compressed to fit the transfer limit.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
rm -rf .carry && mkdir -p .carry/cuda .carry/lib
cp build/cuda/bin/miniapp build/cuda/bin/miniapp-bench build/cuda/bin/miniapp-tests .carry/cuda/
if [ -x build/gpuhost/bin/miniapp-bench ]; then
  mkdir -p .carry/gpuhost
  cp build/gpuhost/bin/miniapp build/gpuhost/bin/miniapp-bench .carry/gpuhost/
fi
strip --strip-unneeded .carry/*/miniapp*
for lib in libopenblas.so.0 libgfortran.so.5 libquadmath.so.0 libbenchmark.so.1debian libhwloc.so.15 \
  libsqlite3.so.0; do
  cp -L "/usr/lib/x86_64-linux-gnu/$lib" ".carry/lib/$lib" # -L: the library itself, under its soname
done
tar -C .carry -cJf .carry/lib.tar.xz lib && rm -rf .carry/lib
du -sh .carry/* .carry
