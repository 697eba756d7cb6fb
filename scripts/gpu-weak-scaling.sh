#!/usr/bin/env bash
# Weak scaling on a multi-GPU device machine (docs/mpi.md): configs/weak_scaling.yaml on 1 rank,
# then on every available GPU count up to 4, one rank per GPU, results packed into $OUT. The
# summary has, per case, the time, the weak-scaling efficiency against 1 rank and SUMMA's
# per-rank breakdown (compute, communication, staging, exposed, overlap: docs/mpi.md).
#   scripts/gpu-weak-scaling.sh      (needs .carry/ from scripts/pack-gpu-carry.sh)
#   PANELS="512 1024" scripts/gpu-weak-scaling.sh   (multi-rank runs once per SUMMA panel width)
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
# One line per case of run $1: time, efficiency against np1, and the breakdown columns.
breakdown() {
  python3 - "$W/np1/results.csv" "$W/$1/results.csv" <<'PY'
import csv, sys
def rows(p):
    try:
        return list(csv.DictReader(open(p, newline="")))
    except OSError:
        return []
one = {(r["family"], r["variant"]): float(r["time_median_s"] or 0) for r in rows(sys.argv[1])}
print(f"{'case':22} {'panel':>5} {'time_ms':>9} {'eff':>5} {'compute':>8} {'comm':>8} "
      f"{'staging':>8} {'exposed':>8} {'overlap':>11}   (per-rank max, ms; overlap min-max)")
for r in rows(sys.argv[2]):
    if r["status"] not in ("ok", "invalid"):
        continue
    t = float(r["time_median_s"]) * 1e3
    t1 = one.get((r["family"], r["variant"]), 0) * 1e3
    ms = lambda k: f"{float(r[k]) * 1e3:8.2f}"
    print(f"{r['family'] + ' ' + r['variant']:22} {r['panel']:>5} {t:9.2f} "
          f"{(100 * t1 / t if t > 0 else 0):4.0f}% {ms('compute_rank_max_s')} {ms('comm_rank_max_s')} "
          f"{ms('transfer_rank_max_s')} {ms('exposed_rank_max_s')} "
          f"{float(r['overlap_rank_min']):5.2f}-{float(r['overlap_rank_max']):4.2f}")
PY
}
run() { # ranks, name, extra --set arguments...
  local np=$1 name=$2; shift 2
  local t0=$SECONDS
  if [ "$np" = 1 ]; then
    .carry/cuda/miniapp run configs/weak_scaling.yaml "${common[@]}" "$@" --output-dir "$W/$name" > "$W/$name.txt" 2>&1
  else
    mpiexec --oversubscribe --bind-to none -n "$np" -x LD_LIBRARY_PATH -x OPENBLAS_CORETYPE \
      .carry/cuda/miniapp run configs/weak_scaling.yaml "${common[@]}" "$@" --output-dir "$W/$name" > "$W/$name.txt" 2>&1
  fi
  echo "$name: np=$np exit $? in $((SECONDS - t0)) s" | tee -a "$sum"
  grep -E "^(matmul|axpby|tile_average) " "$W/$name.txt" | tee -a "$sum"
  breakdown "$name" 2>&1 | tee -a "$sum"
  tar -C /tmp -czf "$OUT/weak.tar.gz" weak
}
run 1 np1
for w in ${PANELS:-1024}; do
  [ "$gpus" -ge 2 ] && run 2 "np2-panel$w" --set mpi.panel="$w" cases.0.n=16384 cases.1.n=16384 \
    cases.2.n=16384
  [ "$gpus" -ge 4 ] && run 4 "np4-panel$w" --set mpi.panel="$w" cases.0.m=16384 cases.0.n=16384 \
    cases.1.m=16384 cases.1.n=16384 cases.2.m=16384 cases.2.n=16384
done
cp "$sum" "$OUT/summary.txt"
