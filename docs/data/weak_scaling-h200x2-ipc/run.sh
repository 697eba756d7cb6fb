#!/usr/bin/env bash
# issue 13, CUDA IPC panels: weak scaling of SUMMA matmul on 2 GPUs, host-staged vs device_ipc.
# Modelled on scripts/gpu-weak-scaling.sh; needs .carry-ipc/{miniapp,lib.tar.xz,weak_ipc.yaml}.
set -uo pipefail
OUT=${OUT:-/tmp/out}
W=/tmp/weak
C=.carry-ipc
rm -rf "$W" && mkdir -p "$W" "$OUT"
mkdir -p /tmp/carry && tar -C /tmp/carry -xJf $C/lib.tar.xz
export LD_LIBRARY_PATH="/tmp/carry/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export NCCL_NVLS_ENABLE=0 # the workplace's rule for multi-GPU machines (no NCCL is used here)
if grep -qw avx512f /proc/cpuinfo; then export OPENBLAS_CORETYPE=SkylakeX; fi
sum="$W/summary.txt"
{ echo "== $(date -u +%FT%TZ) $(nvidia-smi --query-gpu=name --format=csv,noheader | sort | uniq -c)"
  nvidia-smi topo -m 2>/dev/null | head -4; mpiexec --version | head -1; } | tee "$sum"
common=(--set warmup=2 repetitions=10 --quiet)
breakdown() {
  python3 - "$W/np1/results.csv" "$W/$1/results.csv" <<'PY'
import csv, sys
def rows(p):
    try:
        return list(csv.DictReader(open(p, newline="")))
    except OSError:
        return []
one = {(r["family"], r["variant"]): float(r["time_median_s"] or 0) for r in rows(sys.argv[1])}
print(f"{'case':18} {'transport':>10} {'panel':>5} {'time_ms':>8} {'eff':>5} {'compute':>8} {'comm':>8} "
      f"{'transfer':>8} {'exposed':>8} {'overlap':>9} valid  (per-rank max, ms; overlap min-max)")
for r in rows(sys.argv[2]):
    if r["status"] not in ("ok", "invalid"):
        print(r["variant"], r["status"], r.get("message", ""))
        continue
    t = float(r["time_median_s"]) * 1e3
    t1 = one.get((r["family"], r["variant"]), 0) * 1e3
    ms = lambda k: f"{float(r[k]) * 1e3:8.2f}"
    print(f"{r['family'] + ' ' + r['variant']:18} {r.get('transport', ''):>10} {r['panel']:>5} {t:8.2f} "
          f"{(100 * t1 / t if t > 0 else 0):4.0f}% {ms('compute_rank_max_s')} {ms('comm_rank_max_s')} "
          f"{ms('transfer_rank_max_s')} {ms('exposed_rank_max_s')} "
          f"{float(r['overlap_rank_min']):4.2f}-{float(r['overlap_rank_max']):4.2f} {r['valid']}")
PY
}
run() { # ranks, name, extra --set arguments...
  local np=$1 name=$2; shift 2
  local t0=$SECONDS
  if [ "$np" = 1 ]; then
    timeout 90 $C/miniapp run $C/weak_ipc.yaml "${common[@]}" "$@" --output-dir "$W/$name" > "$W/$name.txt" 2>&1
  else
    timeout 90 mpiexec --bind-to none -n "$np" -x LD_LIBRARY_PATH -x OPENBLAS_CORETYPE -x NCCL_NVLS_ENABLE \
      $C/miniapp run $C/weak_ipc.yaml "${common[@]}" "$@" --output-dir "$W/$name" > "$W/$name.txt" 2>&1
  fi
  echo "$name: np=$np exit $? in $((SECONDS - t0)) s" | tee -a "$sum"
  grep -E "^matmul " "$W/$name.txt" | tee -a "$sum"
  [ "$np" = 1 ] || breakdown "$name" 2>&1 | tee -a "$sum"
  tail -5 "$W/$name.txt" | grep -iE "error|fail|abort|rank" | tee -a "$sum"
  tar -C /tmp -czf "$OUT/weak.tar.gz" weak
}
run 1 np1
run 2 np2-ipc --set cases.0.n=16384 mpi.transport=device_ipc
run 2 np2-host --set cases.0.n=16384 mpi.transport=host
run 2 np2-auto-panel512 --set cases.0.n=16384 mpi.panel=512
run 2 np2-ipc-panel2048 --set cases.0.n=16384 mpi.transport=device_ipc mpi.panel=2048
cp "$sum" "$OUT/summary.txt"
