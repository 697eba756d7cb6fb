#!/usr/bin/env bash
# Scaling runs on a multi-GPU device machine (docs/mpi.md), one rank per GPU, results packed into
# $OUT (one tar.gz and summary.txt). The summary has, per case, the time, the efficiency against
# 1 rank and SUMMA's per-rank breakdown (compute, communication, staging, exposed, overlap).
#   scripts/maintainer/gpu-weak-scaling.sh [weak]    configs/weak_scaling.yaml on 1 rank, then on every
#                                         available GPU count up to 4 (auto transport)
#   PANELS="512 1024" scripts/maintainer/gpu-weak-scaling.sh   (multi-rank runs once per SUMMA panel width)
#   scripts/maintainer/gpu-weak-scaling.sh transports  2 GPUs: configs/weak_scaling.yaml with
#                                         mpi.transport device_mpi, device_ipc and host, validated
#   scripts/maintainer/gpu-weak-scaling.sh strong    strong scaling, one vendor float32 product on 1 and 2 GPUs:
#                                         the crossover sweep (tests/gpu/strong_small.yaml, 2048 to
#                                         8192, validated) with device_ipc; 16384^2 and 32768^2
#                                         (tests/gpu/strong_big.yaml) with device_ipc, then 16384^2
#                                         with device_mpi and host; the 8192-block weak run with host
#                                         staging; the sweep with device_mpi and host; 32768^2 with
#                                         device_mpi and host if time is left. Beside each 2-GPU row
#                                         the model's prediction from the rates the run measured
#                                         (scripts/maintainer/summa_rates.py)
#   scripts/maintainer/gpu-weak-scaling.sh four      4 GPUs, most wanted first: 1 -> 2 -> 4 weak scaling of
#                                         the products alone (tests/gpu/weak_products.yaml, vendor
#                                         and tiled_rb, validated, auto transport: IPC) at panels
#                                         1024 and 2048 (4 GPUs) and 1024 (2 GPUs); strong scaling of
#                                         16384^2 over 1, 4 and 2 GPUs (device_ipc); then, while
#                                         time is left, weak 2x2 at panel 512, the crossover sweep on
#                                         1 and 4 GPUs, weak 1x2 at panel 2048, 32768^2 on 4 GPUs.
#                                         Ceilings are measured once per size (reuse_ceilings)
# Needs .carry/ from scripts/pack-gpu-carry.sh; with `pack-gpu-carry.sh --mpi` (.carry/mpi.tar.xz,
# the CUDA-aware Open MPI of scripts/build-cuda-mpi.sh, and programs linked against it) that MPI
# runs everything, else the machine's own mpiexec. device_mpi needs the CUDA-aware one.
# Each mode finishes within 9 minutes: a run that would start too late is skipped, saying so.
set -uo pipefail
mode=${1:-weak}
case "$mode" in weak|transports|strong|four) ;; *) echo "usage: $0 [weak|transports|strong|four]" >&2; exit 2 ;; esac
OUT=${OUT:-/tmp/out}
W=/tmp/weak
BUDGET=${BUDGET:-530} # seconds for the whole mode
rm -rf "$W" && mkdir -p "$W" "$OUT"
mkdir -p /tmp/carry && tar -C /tmp/carry -xJf .carry/lib.tar.xz
[ ! -f .carry/cuda/miniapp.xz ] || xz -d -f .carry/cuda/miniapp.xz # packed by pack-gpu-carry.sh
export LD_LIBRARY_PATH="/tmp/carry/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export NCCL_NVLS_ENABLE=0 # the workplace's rule for multi-GPU machines (no NCCL is used here)
if grep -qw avx512f /proc/cpuinfo; then export OPENBLAS_CORETYPE=SkylakeX; fi
mpi_env=(-x LD_LIBRARY_PATH -x OPENBLAS_CORETYPE)
if [ -f .carry/mpi.tar.xz ]; then # the carried CUDA-aware Open MPI, relocated by OPAL_PREFIX
  tar -C /tmp/carry -xJf .carry/mpi.tar.xz
  export OPAL_PREFIX=/tmp/carry/mpi PATH="/tmp/carry/mpi/bin:$PATH"
  export LD_LIBRARY_PATH="/tmp/carry/mpi/lib:$LD_LIBRARY_PATH"
  mpi_env+=(-x OPAL_PREFIX)
fi
gpus=$(nvidia-smi --query-gpu=name --format=csv,noheader | wc -l)
sum="$W/summary.txt"
{ echo "== $(date -u +%FT%TZ) mode $mode, $gpus GPU(s): $(nvidia-smi --query-gpu=name,memory.total --format=csv,noheader | sort | uniq -c)"
  nvidia-smi topo -m 2>/dev/null | head -6
  echo "mpiexec: $(command -v mpiexec) ($(mpiexec --version 2>&1 | head -1))"
  ompi_info --parsable --all 2>/dev/null | grep -E 'mpi_built_with_cuda_support:value|btl:smcuda:version' | head -3
  ldd .carry/cuda/miniapp | grep -E 'not found|libmpi' ; } 2>&1 | tee "$sum"
save() { tar -C /tmp -czf "$OUT/weak.tar.gz" weak; cp "$sum" "$OUT/summary.txt"; }
# One line per case of run $2 against the one-rank run $1: time, efficiency against it (weak
# scaling: t1 / t; strong: t1 / (ranks t)), and the breakdown columns.
breakdown() {
  python3 - "$W/$1/results.csv" "$W/$2/results.csv" "$3" <<'PY'
import csv, sys
def rows(p):
    try:
        return list(csv.DictReader(open(p, newline="")))
    except OSError:
        return []
strong = sys.argv[3] == "strong"
# strong scaling compares the same product (a config may sweep sizes); weak scaling one block per rank
key = (lambda r: (r["family"], r["variant"], r["m"], r["n"], r["k"])) if strong else \
    (lambda r: (r["family"], r["variant"]))
one = {key(r): float(r["time_median_s"] or 0) for r in rows(sys.argv[1])}
print(f"{'case':30} {'transport':>10} {'panel':>5} {'time_ms':>9} {'eff':>5} {'compute':>8} {'comm':>8} "
      f"{'staging':>8} {'exposed':>8} {'overlap':>9} valid  (per-rank max, ms; overlap min-max)")
for r in rows(sys.argv[2]):
    if r["status"] not in ("ok", "invalid"):
        print(f"{r['family'] + ' ' + r['variant']:30} {r['status']}: {r.get('message', '')}")
        continue
    t = float(r["time_median_s"]) * 1e3
    t1 = one.get(key(r), 0) * 1e3
    name = r["family"] + " " + r["variant"] + (f" {r['m']}x{r['n']}x{r['k']}" if strong else "")
    ranks = int(r.get("ranks") or 1)
    eff = 100 * t1 / (t * (ranks if strong else 1)) if t > 0 else 0
    ms = lambda k: f"{float(r[k] or 0) * 1e3:8.2f}"
    print(f"{name:30} {r.get('transport', ''):>10} {r['panel']:>5} {t:9.2f} "
          f"{eff:4.0f}% {ms('compute_rank_max_s')} {ms('comm_rank_max_s')} "
          f"{ms('transfer_rank_max_s')} {ms('exposed_rank_max_s')} "
          f"{float(r['overlap_rank_min'] or 0):4.2f}-{float(r['overlap_rank_max'] or 0):4.2f} "
          f"{r['status'] == 'ok'}")
PY
}
# run CONFIG NP NAME BASE KIND [SETTING ...]: one run (SETTINGs as for --set), its table lines and
# breakdown, packed at once. NEED (seconds, default 45): the budget a run needs to start.
run() {
  local config=$1 np=$2 name=$3 base=$4 kind=$5; shift 5
  local left=$((BUDGET - SECONDS)) t0=$SECONDS rc
  if [ "$left" -lt "${NEED:-45}" ]; then echo "$name: skipped, $left s of the budget left" | tee -a "$sum"; return; fi
  if [ "$np" -gt "$gpus" ]; then echo "$name: skipped, $np ranks on $gpus GPU(s)" | tee -a "$sum"; return; fi
  local cmd=(.carry/cuda/miniapp run "$config" --set warmup=1 repetitions=5 "$@" --quiet --output-dir "$W/$name")
  if [ "$np" -gt 1 ]; then
    cmd=(mpiexec --oversubscribe --bind-to none -n "$np" "${mpi_env[@]}" "${cmd[@]}")
  fi
  echo "$ ${cmd[*]}" > "$W/$name.txt"
  timeout "$((left - 10))" "${cmd[@]}" >> "$W/$name.txt" 2>&1; rc=$?
  echo "$name: np=$np exit $rc in $((SECONDS - t0)) s" | tee -a "$sum"
  # the case rows of the run's table (kernel, variant, type, ...), whatever the kernel
  grep -E '^[a-z_]+ +[a-z_]+ +(int32|float32|float64) |SUMMA transport|mpi_device_memory' "$W/$name.txt" |
    tee -a "$sum"
  if [ "$np" -gt 1 ]; then
    breakdown "$base" "$name" "$kind" 2>&1 | tee -a "$sum"
    python3 scripts/maintainer/summa_rates.py .carry/cuda/miniapp "$config" \
      "$W/$base/results.csv" "$W/$name/results.csv" 2>&1 | sed 's/^/  model: /' | tee -a "$sum"
  fi
  save
}
weak2=(cases.0.n=16384 cases.1.n=16384 cases.2.n=16384)
weak4=(cases.0.m=16384 cases.0.n=16384 cases.1.m=16384 cases.1.n=16384 cases.2.m=16384 cases.2.n=16384)
case "$mode" in
  weak)
    run configs/weak_scaling.yaml 1 np1 np1 weak
    for w in ${PANELS:-1024}; do
      [ "$gpus" -ge 2 ] && run configs/weak_scaling.yaml 2 "np2-panel$w" np1 weak mpi.panel="$w" "${weak2[@]}"
      [ "$gpus" -ge 4 ] && run configs/weak_scaling.yaml 4 "np4-panel$w" np1 weak mpi.panel="$w" "${weak4[@]}"
    done ;;
  transports) # device_mpi first: the path never run before this script
    run configs/weak_scaling.yaml 1 np1 np1 weak
    for t in device_mpi device_ipc host; do
      run configs/weak_scaling.yaml 2 "np2-$t" np1 weak mpi.transport=$t "${weak2[@]}"
    done ;;
  strong) # most wanted first: every run checks the budget left before it starts
    small=tests/gpu/strong_small.yaml large=tests/gpu/strong_big.yaml
    run $small 1 small-np1 small-np1 strong repetitions=20
    run $small 2 small-np2-device_ipc small-np1 strong repetitions=20 mpi.transport=device_ipc
    run $large 1 big-np1 big-np1 strong
    run $large 2 big-np2-device_ipc big-np1 strong mpi.transport=device_ipc
    for t in device_mpi host; do
      run $large 2 "s16k-np2-$t" big-np1 strong mpi.transport=$t cases.0.n=16384
    done
    # host staging of the 8192-block weak case (B panels no longer staged on 1 x 2)
    run configs/weak_scaling.yaml 1 weak-np1 weak-np1 weak cases.0.variant=vendor validation.enabled=false
    run configs/weak_scaling.yaml 2 weak-np2-host weak-np1 weak cases.0.variant=vendor \
      validation.enabled=false mpi.transport=host "${weak2[@]}"
    for t in device_mpi host; do
      run $small 2 "small-np2-$t" small-np1 strong repetitions=20 mpi.transport=$t
    done
    for t in device_mpi host; do
      [ $((BUDGET - SECONDS)) -gt 100 ] &&
        run $large 2 "s32k-np2-$t" big-np1 strong mpi.transport=$t cases.0.n=32768
    done ;;
  four) # the issue's 4-GPU points; every run checks the budget left before it starts
    weak=tests/gpu/weak_products.yaml big=tests/gpu/strong_big.yaml small=tests/gpu/strong_small.yaml
    w2=(cases.0.n=16384) w4=(cases.0.m=16384 cases.0.n=16384) once=reuse_ceilings=true
    run $weak 1 np1 np1 weak $once
    run $weak 4 np4-panel1024 np1 weak $once mpi.panel=1024 "${w4[@]}"
    run $weak 2 np2-panel1024 np1 weak $once mpi.panel=1024 "${w2[@]}"
    run $weak 4 np4-panel2048 np1 weak $once mpi.panel=2048 "${w4[@]}"
    run $big 1 s16k-np1 s16k-np1 strong $once cases.0.n=16384
    run $big 4 s16k-np4-device_ipc s16k-np1 strong $once cases.0.n=16384 mpi.transport=device_ipc
    run $big 2 s16k-np2-device_ipc s16k-np1 strong $once cases.0.n=16384 mpi.transport=device_ipc
    run $weak 4 np4-panel512 np1 weak $once mpi.panel=512 "${w4[@]}"
    if [ $((BUDGET - SECONDS)) -ge 100 ]; then # the sweep needs its one-GPU baseline from this call
      run $small 1 small-np1 small-np1 strong $once repetitions=20
      run $small 4 small-np4-device_ipc small-np1 strong $once repetitions=20 mpi.transport=device_ipc
    else
      echo "crossover sweep: skipped, $((BUDGET - SECONDS)) s of the budget left" | tee -a "$sum"
    fi
    run $weak 2 np2-panel2048 np1 weak $once mpi.panel=2048 "${w2[@]}"
    # 32768^2 on 4 GPUs (its one-GPU time from an earlier call: setting up 32768^2 on one GPU takes
    # about 3 minutes)
    NEED=120 run $big 4 s32k-np4-device_ipc s16k-np1 strong $once cases.0.n=32768 \
      mpi.transport=device_ipc ;;
esac
echo "== done in $SECONDS s" | tee -a "$sum"
save
