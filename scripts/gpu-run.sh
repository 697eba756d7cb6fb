#!/usr/bin/env bash
# One device-machine session: check the carried CUDA build runs, validate on CUDA, benchmark, and
# leave everything under $OUT (summary.txt last). Used through the device tool:
#   scripts/gpu-run.sh [tests|bench|all|sanitize|check|gemm|gemm-host|hostgemm|compare|rounds|energy|bandwidth|shapes|sizes|targets|cpu-level]
#   (default all: tests and bench)
# The GPU machine's host is an Intel Xeon with AVX-512 (x86-64-v4: AVX-512 F, BW, CD, DQ and VL).
# The script reads the host's level from the CPU flags in /proc/cpuinfo ($CPUINFO) and, from it,
# sets OPENBLAS_CORETYPE (SkylakeX on x86-64-v4, Haswell on x86-64-v3) and picks the host build
# for hostgemm; cpu-level prints the level and OPENBLAS_CORETYPE and does nothing else
# (tests/tools/gpu_run_cpu_level.sh).
# sanitize: compute-sanitizer memcheck over the CUDA kernel tests and racecheck over a run of every
# team-scratch kernel (tests/gpu/racecheck_team_scratch.yaml), within one 10-minute device call;
# results in docs/testing.md.
# check: the CUDA tests, every configs/*.yaml worked example and transpose run validated on CUDA,
# racecheck over the team-scratch kernels, transpose against copy bandwidth in the bench, and
# `miniapp run` against `miniapp-bench` for the same kernels (issue 12's agreement).
# gemm: issue 12's figures: the CUDA tests, tests/gpu/gemm.yaml through `miniapp run` and the same
# kernels (every tiled_rb shape too) through miniapp-bench, ncu on tiled_rb float32/float64 and
# classic tiled 32. gemm-host: racecheck over the team-scratch kernels, then host tiled_rb against
# OpenBLAS and host axpby flat run against bench on .carry/gpuhost (an OpenMP build).
# hostgemm: the host GEMM on the host's cores alone (no GPU program runs; .carry/cuda may be absent):
# lscpu, then host tiled_rb (every shape) and OpenBLAS at 1024 and 2048, float32 and float64, with
# $HOST_THREADS (default 16) threads ($HOST_SIZES: other sizes), OMP_PROC_BIND=spread and OMP_PLACES=cores, through
# miniapp-bench and through `miniapp run` (tests/gpu/hostgemm.yaml), on the carried OpenMP build
# for this CPU's level: .carry/gpuhost (preset gpuhost, x86-64-v4) where the CPU has AVX-512,
# else .carry/gpuhost-v3 (preset gpuhost-v3, x86-64-v3); summary.txt gives each ratio to
# OpenBLAS and run against bench. About 2-3 minutes.
# energy: the NVML energy counter's step and update interval (polled in a tight loop, outside
# miniapp), quickstart and tests/gpu/gemm.yaml on CUDA with each case's joules and watts, two
# cases lasting over a second (tests/gpu/energy_long*.yaml) against nvidia-smi's power reading
# sampled meanwhile (within 15% expected), a host-backend run (why its energy is null).
# bandwidth (tiled transpose; was `transpose`): the CUDA tests (NO_TESTS=1: not), the configs of
# tests/gpu/bandwidth.list (configs/transpose.yaml) validated, tiled transpose
# at 4096 and 8192 through `miniapp run` (and at tile 32 with each compiled thread grid,
# tests/gpu/transpose_grids.yaml, and float32 at each compiled tile width,
# tests/gpu/transpose_tiles.yaml) and miniapp-bench against the copy ceiling, ncu on
# tiled transpose float32/float64, racecheck over tiled transpose at every tile width
# (tests/gpu/racecheck_transpose.yaml; NO_RACECHECK=1: not).
# targets: every row of docs/performance.md's kernel-limits table in one GPU-machine call (see the mode).
# Benchmarks are selected by configs (miniapp-bench --miniapp-config tests/gpu/*.yaml: the same
# cases, ids and ceilings as `miniapp run`), run output by a pattern that matches any case row:
# the script names no kernel (tests/structure/family_names.py).
# Expects .carry/cuda (the CUDA build's programs; optionally .carry/gpuhost and .carry/gpuhost-v3,
# OpenMP builds: scripts/pack-gpu-carry.sh, or --host for those alone) and
# .carry/lib.tar.xz holding the shared libraries the GPU machine lacks (scripts/pack-gpu-carry.sh).
set -uo pipefail
what=${1:-all}
CPUINFO=${CPUINFO:-/proc/cpuinfo}
cpu_has() { # every flag named is in $CPUINFO
  local f
  for f in "$@"; do grep -qw "$f" "$CPUINFO" || return 1; done
}
if cpu_has avx512f avx512bw avx512cd avx512dq avx512vl; then CPU_LEVEL=x86-64-v4
elif cpu_has avx2 fma; then CPU_LEVEL=x86-64-v3
else CPU_LEVEL=; fi
# OpenBLAS 0.3.21 (DYNAMIC_ARCH) falls back to its Prescott (SSE3) kernels on CPUs it does not
# recognise, as the GPU machine's (a VM): name the core from the level so the vendor ceiling is
# honest.
case "$CPU_LEVEL" in
x86-64-v4) export OPENBLAS_CORETYPE=SkylakeX ;;
x86-64-v3) export OPENBLAS_CORETYPE=Haswell ;;
esac
if [ "$what" = cpu-level ]; then
  echo "${CPU_LEVEL:-below x86-64-v3} OPENBLAS_CORETYPE=${OPENBLAS_CORETYPE:-}"
  exit 0
fi
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
# Everything goes to $W; after each stage it is packed into $OUT/gpurun.tar.gz (the device tool
# returns a handful of files, and what a timed-out command left in $OUT still comes back).
W=/tmp/gpurun
rm -rf "$W" && mkdir -p "$W"
save() { tar -C /tmp -czf "$OUT/gpurun.tar.gz" gpurun; cp "$W/summary.txt" "$OUT/summary.txt"; }
mkdir -p /tmp/carry && tar -C /tmp/carry -xJf .carry/lib.tar.xz
for t in miniapp-tests miniapp-kernel-tests; do # xz-compressed by pack-gpu-carry.sh
  [ ! -f ".carry/cuda/$t.xz" ] || xz -d -f ".carry/cuda/$t.xz"
done
export LD_LIBRARY_PATH="/tmp/carry/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMP_PROC_BIND=spread OMP_PLACES=threads
sum="$W/summary.txt"
log() { echo "$*" | tee -a "$sum"; }
# The CUDA GoogleTest suite, both test programs (every compiled backend; $1: a --gtest_filter,
# default all): their last lines and any failures.
cuda_tests() {
  log "== CUDA tests (GoogleTest, every compiled backend, filter ${1:-*})"
  local t rc
  for t in miniapp-kernel-tests miniapp-tests; do
    rc=0
    ".carry/cuda/$t" --gtest_brief=1 --gtest_filter="${1:-*}" > "$W/cuda-$t.txt" 2>&1 || rc=$?
    tail -3 "$W/cuda-$t.txt" | tee -a "$sum"; log "$t exit $rc"
    grep -E "^\[  FAILED" "$W/cuda-$t.txt" | head -20 | tee -a "$sum"
  done
}
# The case rows of `miniapp run`'s table (kernel, variant, type, size, ...) and its ceiling
# lines, whatever the kernel.
case_rows() { grep -E '^[a-z_]+ +[a-z_]+ +(int32|float32|float64) |ceiling' "$@"; }
# The configs listed in $1 (one path a line; tests/gpu/*.list) on CUDA, validated, each run's
# rows and ceilings in the summary (configs/transpose.yaml: every transpose variant and precision,
# odd sizes too).
validated_configs() {
  local cfg name cfgs
  mapfile -t cfgs < <(grep -vE '^[[:space:]]*(#|$)' "$1")
  for cfg in "${cfgs[@]}"; do
    name=$(basename "$cfg" .yaml)
    log "== $cfg on CUDA (validated)"
    .carry/cuda/miniapp run "$cfg" --output-dir "$W/$name-cuda" > "$W/$name.txt" 2>&1
    log "$name exit $?"; case_rows "$W/$name.txt" | tee -a "$sum"
  done
}
# Racecheck (shared-memory hazards between the threads of a team) over a run of every kernel that
# uses team scratch, once each at odd sizes (partial tiles at every edge), within $1 seconds. The
# config's `shape: auto` cases search every compiled shape: an empty autotune cache makes them.
racecheck() {
  local cfg=${2:-tests/gpu/racecheck_team_scratch.yaml}
  log "== compute-sanitizer racecheck: team-scratch kernels ($cfg)"
  rm -rf "$W/racecheck-cache"
  MINIAPP_CACHE_DIR="$W/racecheck-cache" timeout "$1" compute-sanitizer --tool racecheck \
    --racecheck-report hazard --error-exitcode 99 --print-limit 20 \
    .carry/cuda/miniapp run "$cfg" \
    --output-dir "$W/racecheck-run" > "$W/racecheck.txt" 2>&1
  log "racecheck exit $? (0: clean; 99: hazards; 124: timed out; 4: validation failed)"
  # The cases that ended ok counted, every other one named ("[i/N] case: ..."), and racecheck's
  # summary and hazards.
  log "cases ok: $(grep -cE '^\[[0-9]+/[0-9]+\].*: ok' "$W/racecheck.txt")"
  grep -E "^\[[0-9]+/[0-9]+\]" "$W/racecheck.txt" | grep -vE ": ok" | head -20 | tee -a "$sum"
  grep -E "RACECHECK SUMMARY|ERROR SUMMARY|Race reported|[Hh]azard" "$W/racecheck.txt" | head -20 |
    tee -a "$sum"
}
# miniapp-bench on CUDA: $1 the output name under $W (.json and .txt), $2 the minimum time per
# benchmark, then what to time: --miniapp-config=FILE (the cases `miniapp run FILE` runs, each
# against the run's ceiling), or default-mode flags.
cuda_bench() {
  local name=$1 min=$2; shift 2
  .carry/cuda/miniapp-bench --benchmark_min_time="$min" "$@" \
    --benchmark_out="$W/$name.json" --benchmark_out_format=json > "$W/$name.txt" 2>&1
  log "bench $name exit $?"
}
# The rows of miniapp-bench JSON $1: name (padded to $2, default 45), time, rates and, with
# --miniapp-config, the share of the ceiling the run attaches to the same case.
bench_rows() {
  python3 - "$1" "${2:-45}" <<'PY'
import json, sys
w = int(sys.argv[2])
for b in json.load(open(sys.argv[1])).get("benchmarks", []):
    name = b["name"].replace("/manual_time", "")
    if b.get("error_occurred"):
        print(f"{name:{w}s} ERROR {b.get('error_message', '')}")
        continue
    rates = " ".join(f"{k}={b[k] / 1e9:.2f}G" for k in ("FLOP/s", "bytes/s") if b.get(k))
    pct = ""
    if "pct_of_ceiling" in b:
        pct = f" {b['pct_of_ceiling']:.1f}% of {b.get('label', '').split('ceiling: ')[-1]}"
    print(f"{name:{w}s} {b['real_time']:10.4g} {b['time_unit']} {rates}{pct}")
PY
}
# Each tile-128 shape row of default-mode bench JSON $1 against the ceiling (the vendor GEMM) that
# config-mode bench JSON $2 attaches to the case of the same precision and size; with $3, the
# fastest shape at 4096 of each precision is written there (precision:shape ...).
shape_ratios() {
  python3 - "$1" "$2" "${3:-}" <<'PY'
import json, sys
def rows(path):
    return [b for b in json.load(open(path)).get("benchmarks", [])
            if not b.get("error_occurred") and b.get("FLOP/s")]
ceiling = {}  # (precision, size) -> FLOP/s of the ceiling the run attaches
for b in rows(sys.argv[2]):
    part = b["name"].split("/")
    if b.get("ceiling"):
        ceiling[(part[2], part[3])] = b["ceiling"]
best = {}
for b in rows(sys.argv[1]):
    name = b["name"].replace("/manual_time", "")
    part = name.split("/")
    prec, size = part[2], part[3]
    shape = name.split("/shape=", 1)[1] if "/shape=" in name else ""
    c = ceiling.get((prec, size))
    share = f"{100 * b['FLOP/s'] / c:6.1f}% of {c / 1e9:.0f} GFLOP/s" if c else "no ceiling row"
    print(f"  {prec} {size:>16} {shape or '(default)':24s} {b['real_time']:9.3f} {b['time_unit']}"
          f" {b['FLOP/s'] / 1e9:8.1f} GFLOP/s {share}")
    if size.startswith("4096x") and (prec not in best or b["real_time"] < best[prec][1]):
        best[prec] = (shape, b["real_time"])
if sys.argv[3]:
    open(sys.argv[3], "w").write(" ".join(f"{p}:{s}" for p, (s, _) in best.items()))
PY
}
# miniapp-bench's default-mode selection of every tile-128 shape, float32 and float64 (the only
# benchmarks at tile 128 are the register-blocked product's).
SHAPES_FILTER='/float(32|64)/[0-9x]+/tile=128(/|$)'

log "== $(date -u +%FT%TZ) $(hostname) $(nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader)"
log "host CPU: $(grep -m1 'model name' "$CPUINFO" | cut -d: -f2) x $(nproc)"
log "host level: ${CPU_LEVEL:-below x86-64-v3} (OPENBLAS_CORETYPE=${OPENBLAS_CORETYPE:-auto})"
for b in .carry/cuda/miniapp .carry/cuda/miniapp-bench .carry/gpuhost/miniapp .carry/gpuhost-v3/miniapp; do
  [ -x "$b" ] || continue
  if ldd "$b" | grep -q "not found"; then log "MISSING libs for $b:"; ldd "$b" | grep "not found" | tee -a "$sum"; fi
done
[ -x .carry/cuda/miniapp ] && .carry/cuda/miniapp info 2>&1 | tee "$W/info.txt" | tail -8

if [ "$what" = tests ] || [ "$what" = all ]; then
  cuda_tests
  log "== quickstart on CUDA"
  .carry/cuda/miniapp run configs/quickstart.yaml --output-dir "$W/run-quickstart" > "$W/quickstart.txt" 2>&1
  log "quickstart exit $?"; case_rows "$W/quickstart.txt" | tee -a "$sum"
  log "== paper Table 1 on CUDA"
  .carry/cuda/miniapp run configs/paper_table1.yaml --output-dir "$W/paper_table1-cuda" > "$W/table1.txt" 2>&1
  log "table1 exit $?"; case_rows "$W/table1.txt" | tee -a "$sum"
  .carry/cuda/miniapp run configs/paper_table1.yaml --set pinned=true \
    --output-dir "$W/paper_table1-cuda-pinned" > "$W/table1-pinned.txt" 2>&1
  log "table1 pinned exit $?"
  save
fi

if [ "$what" = bench ] || [ "$what" = all ]; then
  log "== miniapp-bench on CUDA"
  for cfg in tests/gpu/bench_stream.yaml tests/gpu/bench_gemm.yaml; do
    tag=$(basename "$cfg" .yaml)
    cuda_bench "$tag-cuda" 0.1 --miniapp-config="$cfg"
    bench_rows "$W/$tag-cuda.json" >> "$sum"
    save
  done
  cuda_bench ceilings-cuda 0.1 --benchmark_filter='^(ceiling|launch)/'
  bench_rows "$W/ceilings-cuda.json" >> "$sum"
  save
  if [ -x .carry/gpuhost/miniapp-bench ]; then
    log "== miniapp-bench on the host (OpenMP, $(nproc) threads, OPENBLAS_CORETYPE=${OPENBLAS_CORETYPE:-auto})"
    .carry/gpuhost/miniapp-bench --benchmark_min_time=0.1 --miniapp-config=tests/gpu/bench_host_stream.yaml \
      --benchmark_out="$W/bench-openmp-stream.json" --benchmark_out_format=json > "$W/bench-openmp.txt" 2>&1
    log "host stream bench exit $?"
    .carry/gpuhost/miniapp-bench --benchmark_min_time=0.1 --miniapp-config=tests/gpu/bench_host_gemm.yaml \
      --benchmark_out="$W/bench-openmp-gemm.json" --benchmark_out_format=json >> "$W/bench-openmp.txt" 2>&1
    log "host gemm bench exit $?"
    bench_rows "$W/bench-openmp-stream.json" >> "$sum"
    bench_rows "$W/bench-openmp-gemm.json" >> "$sum"
    save
  fi
fi
if [ "$what" = check ]; then
  export PATH="$PATH:/usr/local/cuda/bin"
  cuda_tests
  save
  validated_configs tests/gpu/bandwidth.list
  log "== quickstart and tests/gpu/agreement.yaml through miniapp run (the run's table)"
  .carry/cuda/miniapp run configs/quickstart.yaml --output-dir "$W/run-quickstart" > "$W/quickstart.txt" 2>&1
  log "quickstart exit $?"; case_rows "$W/quickstart.txt" | tee -a "$sum"
  .carry/cuda/miniapp run tests/gpu/agreement.yaml --output-dir "$W/run-agreement" > "$W/agreement.txt" 2>&1
  log "agreement run exit $?"; case_rows "$W/agreement.txt" | tee -a "$sum"
  save
  log "== miniapp-bench --miniapp-config tests/gpu/agreement.yaml: the same cases and ceilings"
  cuda_bench bench-check 0.1 --miniapp-config=tests/gpu/agreement.yaml
  bench_rows "$W/bench-check.json" | tee -a "$sum"
  save
  racecheck 200
  save
fi
if [ "$what" = gemm ]; then
  export PATH="$PATH:/usr/local/cuda/bin"
  cuda_tests
  save
  log "== miniapp run tests/gpu/gemm.yaml (each case against its own same-run ceiling)"
  .carry/cuda/miniapp run tests/gpu/gemm.yaml --output-dir "$W/run-gemm" > "$W/gemm-run.txt" 2>&1
  log "gemm run exit $?"; case_rows "$W/gemm-run.txt" | tee -a "$sum"
  save
  log "== miniapp-bench --miniapp-config tests/gpu/gemm.yaml (the same cases and ceilings), then every tile-128 shape"
  cuda_bench bench-gemm 0.2 --miniapp-config=tests/gpu/gemm.yaml
  bench_rows "$W/bench-gemm.json" 60 | tee -a "$sum"
  cuda_bench bench-gemm-shapes 0.2 --miniapp-sizes=4096,8192 --benchmark_filter="$SHAPES_FILTER"
  shape_ratios "$W/bench-gemm-shapes.json" "$W/bench-gemm.json" | tee -a "$sum"
  save
  log "== ncu: one launch of each (tests/gpu/profile_gemm.yaml)"
  for spec in "tiled_rb float32 128" "tiled_rb float64 128" "tiled float32 32"; do
    set -- $spec
    timeout 100 ncu --kernel-name-base demangled -k regex:TeamPolicy --launch-count 1 \
      --section LaunchStats --section Occupancy --section SchedulerStats --section WarpStateStats \
      --section SpeedOfLight --section ComputeWorkloadAnalysis \
      --metrics l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,smsp__inst_executed_op_shared_ld.sum,smsp__sass_thread_inst_executed_op_ffma_pred_on.sum,smsp__sass_thread_inst_executed_op_dfma_pred_on.sum,l1tex__t_bytes_pipe_lsu_mem_local_op_ld.sum \
      .carry/cuda/miniapp run tests/gpu/profile_gemm.yaml --set cases.0.variant=$1 \
      --set cases.0.precision=$2 --set cases.0.tile=$3 --output-dir "$W/ncu-run-$1-$2" \
      > "$W/ncu-$1-$2-$3.txt" 2>&1
    log "ncu $spec exit $?"
    grep -E "Registers Per Thread|Achieved Occupancy|Issue Slots Busy|No Eligible|Block Limit Registers|Compute \(SM\) Throughput|Memory Throughput|Duration|bank_conflicts|wavefronts|inst_executed_op_shared|op_ffma|op_dfma|local_op_ld" \
      "$W/ncu-$1-$2-$3.txt" | sed 's/  */ /g' | tee -a "$sum"
    save
  done
fi
if [ "$what" = gemm-host ]; then
  export PATH="$PATH:/usr/local/cuda/bin"
  racecheck 300
  save
  if [ -x .carry/gpuhost/miniapp-bench ]; then
    log "== host ($(nproc) threads, OPENBLAS_CORETYPE=${OPENBLAS_CORETYPE:-auto}): tests/gpu/hostgemm.yaml against OpenBLAS"
    .carry/gpuhost/miniapp-bench --miniapp-config=tests/gpu/hostgemm.yaml --miniapp-set 'cases.0.n=[1024,2048]' \
      --benchmark_min_time=0.2 --benchmark_out="$W/host-bench.json" --benchmark_out_format=json \
      > "$W/host-bench.txt" 2>&1
    log "host gemm bench exit $?"
    bench_rows "$W/host-bench.json" 60 | tee -a "$sum"
    save
    log "== host configs/quickstart.yaml: miniapp run (twice) against miniapp-bench --miniapp-config (twice)"
    for i in 1 2; do
      .carry/gpuhost/miniapp run configs/quickstart.yaml --output-dir "$W/host-quickstart-$i" \
        > "$W/host-quickstart-$i.txt" 2>&1
      case_rows "$W/host-quickstart-$i.txt" | tee -a "$sum"
      .carry/gpuhost/miniapp-bench --miniapp-config=configs/quickstart.yaml --benchmark_min_time=0.2 \
        --benchmark_out="$W/host-bench-quickstart-$i.json" --benchmark_out_format=json \
        > "$W/host-bench-quickstart-$i.txt" 2>&1
      bench_rows "$W/host-bench-quickstart-$i.json" 60 | tee -a "$sum"
    done
    save
  fi
fi
# shapes: issue 26's tiled_rb tuning: the CUDA matmul tests (every shape at odd sizes; TESTS='*':
# all of them), every tile-128 tiled_rb shape against the vendor GEMM at 4096 and 8192 in one
# miniapp-bench process, then ncu (registers, spill bytes, issue slots, FMA counts) on the
# default shape and the fastest one of each precision at 4096 (PROFILE="float64:SHAPE ...": those
# instead), the fastest through `miniapp run` (tests/gpu/gemm_shapes.yaml; each time beside the
# benchmark's), and racecheck over every tiled_rb shape (tests/gpu/racecheck_tiled_rb.yaml;
# NO_RACECHECK=1: not).
ncu_gemm() { # $1 precision, $2 shape ("" = the default), $3 file tag, then more run options
  local prec=$1 shape=$2 tag=$3
  shift 3
  timeout 100 ncu --kernel-name-base demangled -k regex:TeamPolicy --launch-count 1 \
    --section LaunchStats --section Occupancy --section SchedulerStats --section WarpStateStats \
    --section SpeedOfLight \
    --metrics l1tex__t_bytes_pipe_lsu_mem_local_op_ld.sum,l1tex__t_bytes_pipe_lsu_mem_local_op_st.sum,smsp__sass_thread_inst_executed_op_ffma_pred_on.sum,smsp__sass_thread_inst_executed_op_dfma_pred_on.sum,smsp__inst_executed.sum,smsp__inst_executed_op_shared_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum \
    .carry/cuda/miniapp run tests/gpu/profile_gemm.yaml --set cases.0.precision="$prec" \
    --set cases.0.tile=128 ${shape:+--set "cases.0.shape=$shape"} "$@" --output-dir "$W/ncu-run-$tag" \
    > "$W/ncu-$tag.txt" 2>&1
  log "ncu $prec ${shape:-default} $* exit $?"
  grep -E "Registers Per Thread|Achieved Occupancy|Issue Slots Busy|No Eligible|Compute \(SM\) Throughput|Duration|local_op|op_ffma|op_dfma|smsp__inst_executed.sum|op_shared_ld|bank_conflicts" \
    "$W/ncu-$tag.txt" | sed 's/  */ /g' | tee -a "$sum"
}
if [ "$what" = shapes ]; then
  export PATH="$PATH:/usr/local/cuda/bin"
  cuda_tests "${TESTS:-*Matmul*}" # the matmul tests run every tiled_rb shape at odd sizes
  save
  log "== miniapp-bench: every tile-128 shape at 4096 and 8192, then tests/gpu/gemm_shapes.yaml (the vendor GEMM ceilings)"
  cuda_bench bench-shapes 0.1 --miniapp-sizes=4096,8192 --benchmark_filter="$SHAPES_FILTER"
  cuda_bench bench-shapes-ceilings 0.1 --miniapp-config=tests/gpu/gemm_shapes.yaml
  shape_ratios "$W/bench-shapes.json" "$W/bench-shapes-ceilings.json" "$W/fastest.txt" | tee -a "$sum"
  save
  log "== ncu: the default shape and the fastest at 4096 of each precision"
  for spec in $(printf '%s\n' float32: float64: ${PROFILE:-$(cat "$W/fastest.txt")} | awk '!seen[$0]++'); do
    p=${spec%%:*}; shape=${spec#*:}
    ncu_gemm "$p" "$shape" "$p-$(echo "${shape:-default}" | tr '/' '_')"
    save
  done
  # The fastest shapes through `miniapp run` (validated; against the run's own vendor GEMM), as the
  # defaults would run: their times beside the benchmark's.
  f32=$(tr ' ' '\n' < "$W/fastest.txt" | sed -n 's/^float32://p')
  f64=$(tr ' ' '\n' < "$W/fastest.txt" | sed -n 's/^float64://p')
  log "== miniapp run tests/gpu/gemm_shapes.yaml, float32 ${f32:-default}, float64 ${f64:-default}"
  .carry/cuda/miniapp run tests/gpu/gemm_shapes.yaml ${f32:+--set "cases.0.shape=$f32"} \
    ${f64:+--set "cases.1.shape=$f64"} --output-dir "$W/run-gemm-shapes" > "$W/gemm-shapes-run.txt" 2>&1
  log "run exit $?"; case_rows "$W/gemm-shapes-run.txt" | tee -a "$sum"
  python3 - "$W/run-gemm-shapes/results.json" "$W/bench-shapes.json" <<'PY' | tee -a "$sum"
import json, sys
bench = {b["name"].replace("/manual_time", ""): b["real_time"] for b in json.load(open(sys.argv[2]))["benchmarks"]}
for r in json.load(open(sys.argv[1]))["results"]:
    run_ms, b = 1e3 * r["time_median_s"], bench.get(r["case_id"])
    d = f"{100 * (run_ms - b) / b:+.1f}%" if b else "no bench row"
    print(f"  run {r['case_id']} {r.get('shape')}: {run_ms:.3f} ms, bench {b} ms ({d})")
PY
  save
  [ -n "${NO_RACECHECK:-}" ] || racecheck 200 tests/gpu/racecheck_tiled_rb.yaml
fi
# hostgemm (see the header): the carried OpenMP build whose level this CPU runs.
host_build() {
  if [ "$CPU_LEVEL" = x86-64-v4 ] && [ -x .carry/gpuhost/miniapp-bench ]; then echo .carry/gpuhost
  elif [ -n "$CPU_LEVEL" ] && [ -x .carry/gpuhost-v3/miniapp-bench ]; then echo .carry/gpuhost-v3
  fi
}
# Each row of config-mode bench JSON $1 against the ceiling the run attaches (OpenBLAS), and
# (with run directory $2) each `miniapp run` row against its own ceiling and against the bench.
host_gemm_ratios() {
  python3 - "$1" "${2:-}" <<'PY' | tee -a "$sum"
import json, sys
bench = json.load(open(sys.argv[1]))["benchmarks"]
rate = {b["name"].replace("/manual_time", ""): b["FLOP/s"] / 1e9 for b in bench if "FLOP/s" in b}
for b in bench:
    name = b["name"].replace("/manual_time", "")
    if name not in rate: continue
    c = b.get("ceiling")
    ratio = f"{rate[name] / (c / 1e9):.2f} of {b.get('label', '').split('ceiling: ')[-1]} ({c / 1e9:.0f} GFLOP/s)" if c else "no ceiling"
    print(f"  bench {name:62s} {rate[name]:8.1f} GFLOP/s  {ratio}")
if sys.argv[2]:
    for r in json.load(open(sys.argv[2] + "/results.json"))["results"]:
        cid = r["case_id"]
        b = rate.get(cid)
        agree = f"bench {b:.1f}, run/bench {r['gflops'] / b:.3f}" if b else "no bench row"
        pct = r.get("pct_of_ceiling")
        pct = f"{float(pct):.1f}%" if pct is not None else "-"
        print(f"  run   {cid:62s} {r['gflops']:8.1f} GFLOP/s  {pct} of {r.get('ceiling')} "
              f"(valid: {r.get('valid')}); {agree}")
PY
}
# The host GEMM rows (hostgemm, targets): host tiled_rb and OpenBLAS through miniapp-bench and
# `miniapp run` on the carried OpenMP build this CPU runs.
host_gemm() {
  host=$(host_build)
  lscpu > "$W/lscpu.txt" 2>&1
  grep -E "^(Model name|CPU\(s\)|Thread|Core|Socket|NUMA node\(|L1d|L2|L3|Hypervisor)" "$W/lscpu.txt" | tee -a "$sum"
  if [ -z "$host" ]; then
    log "no carried host build runs on this CPU (.carry/gpuhost: x86-64-v4, .carry/gpuhost-v3: x86-64-v3)"
  else
    threads=${HOST_THREADS:-16} sizes=${HOST_SIZES:-1024,2048} # (smaller sizes: a check of this script)
    [ "$(nproc)" -lt "$threads" ] && threads=$(nproc)
    export OMP_NUM_THREADS=$threads OMP_PROC_BIND=spread OMP_PLACES=cores
    log "== host GEMM: $host, $threads threads (OMP_PROC_BIND=spread OMP_PLACES=cores), OPENBLAS_CORETYPE=${OPENBLAS_CORETYPE:-auto}"
    timeout 100 "$host/miniapp-bench" --miniapp-config=tests/gpu/hostgemm.yaml --miniapp-set "cases.0.n=[$sizes]" \
      --benchmark_min_time=0.3 \
      --benchmark_out="$W/hostgemm-bench.json" --benchmark_out_format=json > "$W/hostgemm-bench.txt" 2>&1
    log "host gemm bench exit $?"
    bench_rows "$W/hostgemm-bench.json" 75 >> "$sum"
    timeout 100 "$host/miniapp-bench" --miniapp-sizes="$sizes" --benchmark_min_time=0.3 \
      --benchmark_filter="$SHAPES_FILTER" \
      --benchmark_out="$W/hostgemm-shapes.json" --benchmark_out_format=json > "$W/hostgemm-shapes.txt" 2>&1
    log "host shapes bench exit $?"
    shape_ratios "$W/hostgemm-shapes.json" "$W/hostgemm-bench.json" >> "$sum"
    save
    timeout 75 "$host/miniapp" run tests/gpu/hostgemm.yaml --set "cases.0.n=[$sizes]" \
      --output-dir "$W/hostgemm-run" > "$W/hostgemm-run.txt" 2>&1
    log "host gemm run exit $?"
    case_rows "$W/hostgemm-run.txt" | tee -a "$sum"
    log "== ratios (default shape first in each size; run rows against their own same-run OpenBLAS)"
    run_dir=$(find "$W/hostgemm-run" -name results.json -printf '%h\n' 2>/dev/null | head -1)
    host_gemm_ratios "$W/hostgemm-bench.json" "$run_dir"
  fi
}
if [ "$what" = hostgemm ]; then
  host_gemm
  save
fi
# Every row of run directory $1: case, level, % of its ceiling; rows above 105% are named.
ceiling_check() {
  python3 - "$1" <<'PY' | tee -a "$sum"
import json, sys
doc = json.load(open(sys.argv[1] + "/results.json"))
worst = 0.0
for r in doc["results"]:
    pct = r.get("pct_of_ceiling")
    pct = float(pct) if pct is not None else -1
    worst = max(worst, pct)
    flag = "  ABOVE 105%" if pct > 105 else ""
    print(f"  {r.get('case_id', '?'):58s} {str(r.get('ceiling_level')):7s} {pct:7.1f}%{flag}")
print(f"  largest share of a ceiling: {worst:.1f}%")
PY
}
# compare: the CUDA tests; quickstart, the GEMM configs (tests/gpu/gemm.yaml and
# configs/matmul_tiles.yaml), roofline_demo and paper_table1 (pageable and pinned) on CUDA, every
# row with its level and its share of that level's ceiling (at most 105% expected); the GEMM config
# a second time (the vendor ceiling's stability). rounds: quickstart and matmul_tiles with
# --rounds 3, each twice, and compare's verdicts.
if [ "$what" = compare ]; then
  cuda_tests
  save
  mapfile -t cfgs < <(grep -vE '^[[:space:]]*(#|$)' tests/gpu/compare.list) # the configs: data
  for cfg in "${cfgs[@]}"; do
    name=$(basename "$cfg" .yaml)
    .carry/cuda/miniapp run "$cfg" --output-dir "$W/$name-cuda" > "$W/$name.txt" 2>&1
    log "== $name on CUDA: exit $?"
    grep -E "^ceiling" "$W/$name.txt" | tee -a "$sum"
    ceiling_check "$W/$name-cuda"
    save
  done
  .carry/cuda/miniapp run configs/paper_table1.yaml --set pinned=true \
    --output-dir "$W/paper_table1-cuda-pinned" > "$W/paper_table1-pinned.txt" 2>&1
  log "== paper_table1 pinned: exit $?"
  ceiling_check "$W/paper_table1-cuda-pinned"
  .carry/cuda/miniapp run tests/gpu/gemm.yaml --output-dir "$W/gemm-cuda-2" > "$W/gemm-2.txt" 2>&1
  log "== gemm again: exit $?; vendor GEMM ceilings of the two runs:"
  grep -h "vendor GEMM" "$W/gemm.txt" "$W/gemm-2.txt" | tee -a "$sum"
  save
fi
if [ "$what" = rounds ]; then
  for cfg in quickstart matmul_tiles; do
    for i in 1 2; do
      .carry/cuda/miniapp run "configs/$cfg.yaml" --rounds 3 --output-dir "$W/$cfg-rounds-$i" \
        > "$W/$cfg-rounds-$i.txt" 2>&1
      log "== $cfg --rounds 3 ($i): exit $?"
    done
    # --no-pool: the two runs as two sides (by default compare pools repeats of one experiment)
    .carry/cuda/miniapp compare "$W/$cfg-rounds-1" "$W/$cfg-rounds-2" --no-pool \
      > "$W/$cfg-rounds-compare.md" 2>&1
    grep -E "^\| [a-z_]+/" "$W/$cfg-rounds-compare.md" | tee -a "$sum"
    save
  done
  # A real difference: classic tiled with tile 2 against tile 16, 3 rounds each.
  for t in 2 16; do
    .carry/cuda/miniapp run configs/matmul_tiles.yaml --rounds 3 --set cases.0.variant=tiled \
      "cases.0.tile=$t" --output-dir "$W/tile$t-rounds" > "$W/tile$t-rounds.txt" 2>&1
    log "== configs/matmul_tiles.yaml tile $t --rounds 3: exit $?"
  done
  .carry/cuda/miniapp compare "$W/tile16-rounds" "$W/tile2-rounds" --ignore-param tile \
    > "$W/tile-rounds-compare.md" 2>&1
  grep -E "^\| [a-z_]+/" "$W/tile-rounds-compare.md" | tee -a "$sum"
  # The vendor GEMM ceilings at 256 and 512 in two consecutive runs.
  for i in 1 2; do
    .carry/cuda/miniapp run configs/roofline_demo.yaml --output-dir "$W/roofline-$i" \
      > "$W/roofline-$i.txt" 2>&1
    log "== roofline_demo ($i): exit $?"
    grep "vendor GEMM float" "$W/roofline-$i.txt" | tee -a "$sum"
  done
  save
fi
if [ "$what" = sanitize ]; then
  export PATH="$PATH:/usr/local/cuda/bin"
  # The kernel tests in one precision (float32) plus the worked examples: every kernel and variant
  # at awkward sizes, in a few minutes under memcheck (~10-50x slower than plain).
  log "== compute-sanitizer memcheck: CUDA kernel tests (float32) and worked examples"
  timeout 360 compute-sanitizer --tool memcheck --error-exitcode 99 --print-limit 20 \
    .carry/cuda/miniapp-kernel-tests --gtest_brief=1 \
    --gtest_filter='AllBackends/Kernels.*/cuda_float32:AllBackends/WorkedExamples.*/cuda' \
    > "$W/memcheck.txt" 2>&1
  rc=$?
  log "memcheck exit $rc (0: clean; 99: memcheck errors; 124: timed out; other: tests failed)"
  grep -E "ERROR SUMMARY|tests? (ran|passed)|FAILED" "$W/memcheck.txt" | head -20 | tee -a "$sum"
  save
  racecheck 180
  save
fi
# Each row of run directory $1: case, median time, rate, joules per launch, watts, rate per watt,
# the window, and the note where energy is null.
energy_rows() {
  python3 - "$1" <<'PY' | tee -a "$sum"
import json, sys
doc = json.load(open(sys.argv[1] + "/results.json"))
for r in doc["results"]:
    rate = r["gflops"] if r.get("rate_per_watt_unit", "") and "GFLOP" in r["rate_per_watt_unit"] else r["gbs"]
    if r.get("energy_j") is None:
        print(f"  {r['case_id']:50s} energy null: {r.get('energy_note')}")
        continue
    print(f"  {r['case_id']:50s} {r['time_median_s']*1e3:9.3f} ms {rate:10.1f} "
          f"{r['energy_j']:9.4f} J/launch {r['power_w']:6.1f} W {r['rate_per_watt']:8.2f} "
          f"{r['rate_per_watt_unit']} window {r['energy_window_s']:.2f} s")
print("  counter:", doc["results"][0].get("energy_counter") if doc["results"] else "-")
PY
}
if [ "$what" = energy ]; then
  export PATH="$PATH:/usr/local/cuda/bin"
  log "== miniapp info (each backend's energy counter, characterised at start)"
  grep -E "^  [a-z]+:|energy counter" "$W/info.txt" | tee -a "$sum"
  log "== NVML energy counter polled in a tight loop for 3 s, idle (python ctypes, outside miniapp)"
  python3 - <<'PY' 2>&1 | tee -a "$sum"
import ctypes, time, statistics
nv = ctypes.CDLL("libnvidia-ml.so.1")
assert nv.nvmlInit_v2() == 0
h = ctypes.c_void_p()
assert nv.nvmlDeviceGetHandleByIndex_v2(0, ctypes.byref(h)) == 0
e = ctypes.c_ulonglong()
reads, changes, steps, last, t0 = 0, [], [], None, time.perf_counter()
while time.perf_counter() - t0 < 3.0:
    nv.nvmlDeviceGetTotalEnergyConsumption(h, ctypes.byref(e)); reads += 1
    now = time.perf_counter()
    if last is not None and e.value != last:
        changes.append(now); steps.append(e.value - last)
    last = e.value
iv = [b - a for a, b in zip(changes, changes[1:])]
print(f"  {reads} reads ({3.0/reads*1e6:.1f} us each), {len(changes)} changes")
if iv:
    print(f"  update interval: min {min(iv)*1e3:.2f} ms, median {statistics.median(iv)*1e3:.2f} ms, max {max(iv)*1e3:.2f} ms")
    print(f"  step: min {min(steps)} mJ, median {statistics.median(steps)} mJ, max {max(steps)} mJ (idle power {sum(steps[1:])/1e3/(changes[-1]-changes[0]):.1f} W)")
PY
  for cfg in configs/quickstart.yaml tests/gpu/gemm.yaml; do
    name=$(basename "$cfg" .yaml)
    .carry/cuda/miniapp run "$cfg" --output-dir "$W/$name-cuda" > "$W/$name.txt" 2>&1
    log "== $name on CUDA: exit $? (time, rate, J per launch, W, rate per W, window)"
    energy_rows "$W/$name-cuda"
    save
  done
  log "== cases over 1 s: the run's power_w against nvidia-smi (power.draw and power.draw.instant)"
  q=timestamp,power.draw,power.draw.instant,utilization.gpu
  nvidia-smi --query-gpu=$q --format=csv,noheader,nounits > /dev/null 2>&1 || q=timestamp,power.draw,power.draw,utilization.gpu
  for cfg in tests/gpu/energy_long.yaml tests/gpu/energy_long_axpby.yaml; do
    name=$(basename "$cfg" .yaml)
    nvidia-smi --query-gpu=$q --format=csv,noheader,nounits -lms 50 > "$W/$name-smi.csv" 2>&1 &
    smi=$!
    sleep 1
    .carry/cuda/miniapp run "$cfg" --output-dir "$W/$name-cuda" > "$W/$name.txt" 2>&1
    log "== $name: exit $?"
    sleep 0.3; kill "$smi"; wait "$smi" 2>/dev/null
    energy_rows "$W/$name-cuda"
    python3 - "$W/$name-cuda" "$W/$name-smi.csv" <<'PY' | tee -a "$sum"
import json, statistics, sys
r = json.load(open(sys.argv[1] + "/results.json"))["results"][0]
rows = []
for line in open(sys.argv[2]):
    f = [x.strip() for x in line.split(",")]
    try: rows.append((float(f[1]), float(f[2]), float(f[3])))
    except (ValueError, IndexError): pass
busy = [x for x in rows if x[2] >= 90]
print(f"  nvidia-smi: {len(rows)} samples every 50 ms, {len(busy)} with utilization >= 90%")
if busy and r.get("power_w"):
    avg, inst = statistics.median(x[0] for x in busy), statistics.median(x[1] for x in busy)
    w = r["power_w"]
    for name, v in (("power.draw", avg), ("power.draw.instant", inst)):
        d = 100 * (w - v) / v
        print(f"  {name:18s} median {v:7.1f} W; miniapp {w:7.1f} W over {r['energy_window_s']:.2f} s: "
              f"{d:+.1f}% {'WITHIN' if abs(d) <= 15 else 'OUTSIDE'} 15%")
PY
    save
  done
  log "== host backend (serial) quickstart at 512: energy recorded as null with the reason"
  .carry/cuda/miniapp run configs/quickstart.yaml --set backend=serial --set cases.0.n=512 \
    --output-dir "$W/quickstart-serial" > "$W/quickstart-serial.txt" 2>&1
  log "serial quickstart exit $?"
  energy_rows "$W/quickstart-serial"
  save
fi
# ncu on one launch of tiled transpose (tests/gpu/profile_transpose.yaml) at 4096, float32 and
# float64: instructions (per element: thread instructions / 4096^2), issue slots, DRAM bytes.
ncu_transpose() {
  log "== ncu: tests/gpu/profile_transpose.yaml, one launch each"
  for spec in "float32 4096" "float64 4096"; do
    # shellcheck disable=SC2086 # the spec's words are the arguments
    set -- $spec
    timeout 100 ncu --kernel-name-base demangled -k regex:TeamPolicy --launch-count 1 \
      --section SpeedOfLight --section SchedulerStats --section WarpStateStats --section LaunchStats \
      --section Occupancy --section MemoryWorkloadAnalysis --section InstructionStats \
      --metrics smsp__inst_executed.sum,smsp__thread_inst_executed.sum,dram__bytes_read.sum,dram__bytes_write.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum,l1tex__t_requests_pipe_lsu_mem_global_op_st.sum \
      .carry/cuda/miniapp run tests/gpu/profile_transpose.yaml --set cases.0.precision="$1" \
      --set cases.0.n="$2" --output-dir "$W/ncu-run-profile-$1-$2" > "$W/ncu-profile-$1-$2.txt" 2>&1
    log "ncu profile_transpose $spec exit $?"
    grep -E "Registers Per Thread|Achieved Occupancy|Issue Slots Busy|No Eligible|Memory Throughput|DRAM Throughput|Duration|Executed Ipc|bank_conflicts|inst_executed.sum|dram__bytes|issue_active|sectors|requests|Block Size|Grid Size|Theoretical Occupancy" \
      "$W/ncu-profile-$1-$2.txt" | sed 's/  */ /g' | tee -a "$sum"
    awk -v n="$2" '/smsp__thread_inst_executed.sum/ { gsub(",", "", $NF);
      printf "  thread instructions per element: %.1f\n", $NF / (n * n) }' \
      "$W/ncu-profile-$1-$2.txt" | tee -a "$sum"
    save
  done
}
# Tiled transpose with each compiled thread grid at tile 32 (tests/gpu/transpose_grids.yaml), and
# float32 at each compiled tile width with the grids around its own (tests/gpu/transpose_tiles.yaml).
transpose_grids() {
  log "== tests/gpu/transpose_grids.yaml: tile 32, 64 / 128 / 256 threads a team"
  .carry/cuda/miniapp run tests/gpu/transpose_grids.yaml --output-dir "$W/run-grids" \
    > "$W/grids.txt" 2>&1
  log "grids run exit $?"; case_rows "$W/grids.txt" | tee -a "$sum"
  log "== tests/gpu/transpose_tiles.yaml: float32, tile 16 / 32 / 64, each with its grids"
  .carry/cuda/miniapp run tests/gpu/transpose_tiles.yaml --output-dir "$W/run-tiles" \
    > "$W/tiles.txt" 2>&1
  log "tiles run exit $?"; case_rows "$W/tiles.txt" | tee -a "$sum"
}
if [ "$what" = bandwidth ]; then
  export PATH="$PATH:/usr/local/cuda/bin"
  [ -n "${NO_TESTS:-}" ] || cuda_tests
  save
  validated_configs tests/gpu/bandwidth.list
  log "== miniapp run tests/gpu/agreement_transpose.yaml"
  .carry/cuda/miniapp run tests/gpu/agreement_transpose.yaml --output-dir "$W/run-agreement-bandwidth" \
    > "$W/agreement-bandwidth.txt" 2>&1
  log "agreement run exit $?"; case_rows "$W/agreement-bandwidth.txt" | tee -a "$sum"
  save
  transpose_grids
  save
  log "== miniapp-bench --miniapp-config tests/gpu/bench_transpose.yaml, against the copy ceiling"
  cuda_bench bench-bandwidth 0.1 --miniapp-config=tests/gpu/bench_transpose.yaml
  bench_rows "$W/bench-bandwidth.json" | tee -a "$sum"
  save
  ncu_transpose
  [ -n "${NO_RACECHECK:-}" ] || racecheck 240 tests/gpu/racecheck_transpose.yaml
fi
# targets: every row of the kernel-limits table (docs/performance.md) in one GPU-machine call: the CUDA
# transpose and matmul tests (TESTS: another filter; NO_TESTS=1: none), a raw cudaMemcpy D2D
# built here (scripts/memcpy_ceiling.cu), the raw CUDA A^T anchor (scripts/transpose_anchor.cu:
# what the classic tile reaches under each way of timing), tests/gpu/targets.yaml through
# `miniapp run` (each row against its same-run ceiling, validated) and the same case ids through
# miniapp-bench in one process (three repetitions of 2 s each), a table of both with run against bench per row (within 5%
# expected), ncu on tiled
# transpose, racecheck over every transpose tile width (NO_RACECHECK=1: not), then the host GEMM
# rows (host_gemm; NO_HOST=1: not).
if [ "$what" = targets ]; then
  export PATH="$PATH:/usr/local/cuda/bin"
  [ -n "${NO_TESTS:-}" ] || cuda_tests "${TESTS:-*Transpose*:*Matmul*}"
  save
  log "== raw cudaMemcpy device to device, 8192 x 8192 float32 (scripts/memcpy_ceiling.cu)"
  if nvcc -O2 -o "$W/memcpy_ceiling" scripts/memcpy_ceiling.cu > "$W/memcpy.txt" 2>&1; then
    "$W/memcpy_ceiling" 8192 2>&1 | tee -a "$W/memcpy.txt" "$sum"
  else log "memcpy_ceiling did not build (see memcpy.txt)"; fi
  log "== raw CUDA B = A^T (the classic padded 32 x 33 tile), timed one launch fenced, by events and chained (scripts/transpose_anchor.cu)"
  if nvcc -O3 -arch=native -o "$W/transpose_anchor" scripts/transpose_anchor.cu > "$W/anchor.txt" 2>&1; then
    "$W/transpose_anchor" 4096 8192 2>&1 | tee -a "$W/anchor.txt" "$sum"
  else log "transpose_anchor did not build (see anchor.txt)"; fi
  log "== miniapp run tests/gpu/targets.yaml (each row against its same-run ceiling)"
  .carry/cuda/miniapp run tests/gpu/targets.yaml --references tests/gpu/references/targets.yaml \
    --output-dir "$W/run-targets" > "$W/targets-run.txt" 2>&1
  log "run exit $?"; case_rows "$W/targets-run.txt" | tee -a "$sum"
  save
  log "== miniapp-bench --miniapp-config tests/gpu/targets.yaml: the same cases, each against its ceiling (one process)"
  # Three repetitions, the median compared with the run's median: a mean over one batch of
  # launches moved 5% between calls on a transpose whose run stayed within 0.1%. Each lasts 2 s,
  # the span the run times on a GPU (core/timing.hpp): at its power cap the float64 GEMM's clock
  # swings over about a second, and repetitions of 0.2 s read 5.8 to 6.3 ms by their phase.
  cuda_bench bench-targets 2 --miniapp-config=tests/gpu/targets.yaml --benchmark_repetitions=3 \
    --benchmark_report_aggregates_only=true
  bench_rows "$W/bench-targets.json" 60 >> "$sum"
  log "== the rows: run (% of its same-run ceiling), bench (% of the bench's), run against bench"
  python3 - "$W/run-targets/results.json" "$W/bench-targets.json" "$W/memcpy.txt" <<'PY' | tee -a "$sum"
import json, re, sys
scale = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}
# The bench rows of the same cases (miniapp-bench --miniapp-config), each with the ceiling the run
# attaches; the targets are the references file's (tests/gpu/references/targets.yaml).
rows = [b for b in json.load(open(sys.argv[2]))["benchmarks"] if not b.get("error_occurred")]
medians = [b for b in rows if b.get("aggregate_name") == "median"]
bench = {b.get("run_name", b["name"]).replace("/manual_time", ""): b for b in (medians or rows)}
m = re.search(r"([0-9.]+) GB/s", open(sys.argv[3]).read())
memcpy = float(m.group(1)) if m else None
print(f"  raw cudaMemcpy D2D {memcpy} GB/s")
print("  | case | run | % of same-run ceiling | bench | bench % | run/bench | target |")
for r in json.load(open(sys.argv[1]))["results"]:
    cid, t = r["case_id"], r["time_median_s"]
    bb = bench.get(cid)
    b = bb["real_time"] * scale[bb.get("time_unit", "ns")] if bb else None
    bpct = bb.get("pct_of_ceiling") if bb else None
    if r.get("ceiling_unit") == "GFLOP/s":
        rate = f"{r['gflops'] / 1e3:.2f} TFLOP/s"
    else:
        rate = f"{r['gbs']:.0f} GB/s" + (f" ({100 * r['gbs'] / memcpy:.1f}% of memcpy)" if memcpy else "")
    goal, met = r.get("reference"), r.get("reference_status") or "-"
    pct = r.get("pct_of_ceiling")
    agree = f"{100 * (t - b) / b:+.1f}%" if b else "no bench row"
    print(f"  | {cid} | {rate} | {pct:.1f}% of {r.get('ceiling')} (valid: {r.get('valid')}) | "
          f"{b * 1e3 if b else float('nan'):.4f} ms | {bpct if bpct else float('nan'):.1f}% | {agree} | "
          f"{goal if goal else '-'}% {met} |")
PY
  save
  [ -z "${GRIDS:-}" ] || transpose_grids
  ncu_transpose
  [ -n "${NO_RACECHECK:-}" ] || racecheck 240 tests/gpu/racecheck_transpose.yaml
  save
  [ -n "${NO_HOST:-}" ] || host_gemm
fi
# sizes: issue 44's curve: the CUDA matmul tests (every shape at odd sizes; TESTS: another
# filter; NO_TESTS=1: none), tests/gpu/gemm_sizes.yaml (validated) and gemm_sizes_16384.yaml
# through `miniapp run`, each row against the vendor GEMM of its shape, the first config's cases
# through miniapp-bench (run against bench), the table (scripts/gemm_sizes_table.py; NO_RUNS=1:
# none of these), racecheck over every tiled_rb shape (NO_RACECHECK=1: not), ncu on tiled_rb at
# 4097 (edge tiles) and 1024 (split-K) in float32 and float64, and tiled transpose at each tile
# width and thread grid. About 8 minutes on an H200.
if [ "$what" = sizes ]; then
  export PATH="$PATH:/usr/local/cuda/bin"
  [ -n "${NO_TESTS:-}" ] || cuda_tests "${TESTS:-*Matmul*}"
  save
  if [ -z "${NO_RUNS:-}" ]; then
    for cfg in tests/gpu/gemm_sizes.yaml tests/gpu/gemm_sizes_16384.yaml; do
      name=$(basename "$cfg" .yaml)
      log "== miniapp run $cfg"
      timeout 240 .carry/cuda/miniapp run "$cfg" --output-dir "$W/run-$name" > "$W/$name.txt" 2>&1
      log "$name run exit $?"
      save
    done
    cuda_bench bench-sizes 0.2 --miniapp-config=tests/gpu/gemm_sizes.yaml
    python3 scripts/gemm_sizes_table.py "$W/run-gemm_sizes" "$W/run-gemm_sizes_16384" \
      --bench "$W/bench-sizes.json" | tee -a "$sum"
    save
  fi
  [ -n "${NO_RACECHECK:-}" ] || racecheck 150 tests/gpu/racecheck_tiled_rb.yaml
  save
  log "== ncu: tiled_rb at 4097 (edge tiles) and 1024 (split-K)"
  for spec in "float32 4097" "float64 4097" "float32 1024" "float64 1024"; do
    set -- $spec
    ncu_gemm "$1" "" "$1-$2" --set cases.0.n="$2"
    save
  done
  transpose_grids
fi
save
log "== done $(date -u +%FT%TZ)"
save
cat "$sum"
