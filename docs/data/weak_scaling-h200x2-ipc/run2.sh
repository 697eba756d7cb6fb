#!/usr/bin/env bash
# Second look (final binary): the run header on 2 GPUs with transport auto, and a repeat of the
# host-staged and IPC 1024-panel runs for their spread between runs.
set -uo pipefail
OUT=${OUT:-/tmp/out}; W=/tmp/weak2; C=.carry-ipc
rm -rf "$W" && mkdir -p "$W" "$OUT"
mkdir -p /tmp/carry && tar -C /tmp/carry -xJf $C/lib.tar.xz
export LD_LIBRARY_PATH="/tmp/carry/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 NCCL_NVLS_ENABLE=0
if grep -qw avx512f /proc/cpuinfo; then export OPENBLAS_CORETYPE=SkylakeX; fi
mpi() { timeout 90 mpiexec --bind-to none -n 2 -x LD_LIBRARY_PATH -x OPENBLAS_CORETYPE -x NCCL_NVLS_ENABLE \
  $C/miniapp run $C/weak_ipc.yaml --set warmup=2 repetitions=10 cases.0.n=16384 "$@"; }
mpi validation.enabled=false --output-dir $W/np2-auto > $W/np2-auto.txt 2>&1; echo "np2-auto exit $?"
for t in host device_ipc host device_ipc; do
  mpi validation.enabled=false mpi.transport=$t --quiet --output-dir $W/np2-$t-$RANDOM >> $W/repeat.txt 2>&1
  echo "np2 $t exit $?"
done
head -12 $W/np2-auto.txt; grep -E "^matmul " $W/repeat.txt
tar -C /tmp -czf "$OUT/weak2.tar.gz" weak2
