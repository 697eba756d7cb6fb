#!/usr/bin/env bash
# Weak scaling on a multi-GPU device machine (docs/mpi.md): configs/weak_scaling.yaml on 1 rank,
# then on every available GPU count up to 4, one rank per GPU, results packed into $OUT.
#   scripts/gpu-weak-scaling.sh      (needs .carry/ from scripts/pack-gpu-carry.sh)
set -uo pipefail
OUT=${OUT:-/tmp/out}
W=/tmp/weak
rm -rf "$W" && mkdir -p "$W" "$OUT"
mkdir -p /tmp/carry && tar -C /tmp/carry -xJf .carry/lib.tar.xz
export LD_LIBRARY_PATH="/tmp/carry/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export NCCL_NVLS_ENABLE=0 # the workplace's rule for multi-GPU machines (no NCCL is used here)
if grep -qw avx512f /proc/cpuinfo; then export OPENBLAS_CORETYPE=SkylakeX; fi
gpus=$(nvidia-smi --query-gpu=name --format=csv,noheader | wc -l)
sum="$W/summary.txt"
{ echo "== $(date -u +%FT%TZ) $gpus GPU(s): $(nvidia-smi --query-gpu=name --format=csv,noheader | sort | uniq -c)"
  nvidia-smi topo -m 2>/dev/null | head -6; } | tee "$sum"
common=(--set warmup=1 repetitions=5 --quiet)
run() { # ranks, extra --set arguments...
  local np=$1; shift
  local t0=$SECONDS
  if [ "$np" = 1 ]; then
    .carry/cuda/miniapp run configs/weak_scaling.yaml "${common[@]}" "$@" --output-dir "$W/np$np" > "$W/np$np.txt" 2>&1
  else
    mpiexec --oversubscribe --bind-to none -n "$np" -x LD_LIBRARY_PATH -x OPENBLAS_CORETYPE \
      .carry/cuda/miniapp run configs/weak_scaling.yaml "${common[@]}" "$@" --output-dir "$W/np$np" > "$W/np$np.txt" 2>&1
  fi
  echo "np=$np exit $? in $((SECONDS - t0)) s" | tee -a "$sum"
  grep -E "^(matmul|axpby|tile_average) " "$W/np$np.txt" | tee -a "$sum"
  tar -C /tmp -czf "$OUT/weak.tar.gz" weak
}
run 1
[ "$gpus" -ge 2 ] && run 2 --set cases.0.n=16384 cases.1.n=16384 cases.2.n=16384
[ "$gpus" -ge 4 ] && run 4 --set cases.0.m=16384 cases.0.n=16384 cases.1.m=16384 cases.1.n=16384 \
  cases.2.m=16384 cases.2.n=16384
cp "$sum" "$OUT/summary.txt"
