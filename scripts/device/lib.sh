# shellcheck shell=bash
# What every device mode shares, sourced by scripts/gpu-run.sh before the mode's file: the host's
# x86-64 level, the run's start (device_start: the carried build unpacked, the machine described,
# everything written under $W and packed into $OUT), and the helpers the modes are built from.
# The Python the helpers run is in the .py files beside this one.
#
# The GPU machine's host is an Intel Xeon with AVX-512 (x86-64-v4: AVX-512 F, BW, CD, DQ and VL).
# The level is read from the CPU flags in /proc/cpuinfo ($CPUINFO) and, from it, OPENBLAS_CORETYPE
# is set (SkylakeX on x86-64-v4, Haswell on x86-64-v3) and the host build picked for hostgemm.
# Benchmarks are selected by configs (miniapp-bench --miniapp-config tests/gpu/*.yaml: the same
# cases, ids and ceilings as `miniapp run`), run output by a pattern that matches any case row:
# the scripts name no kernel (tests/structure/family_names.py).
DEVICE_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
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

# Everything goes to $W; after each stage it is packed into $OUT/gpurun.tar.gz (the device tool
# returns a handful of files, and what a timed-out command left in $OUT still comes back).
save() { tar -C /tmp -czf "$OUT/gpurun.tar.gz" gpurun; cp "$W/summary.txt" "$OUT/summary.txt"; }
log() { echo "$*" | tee -a "$sum"; }
# The start every mode but cpu-level runs: $OUT and $W made, the carried shared libraries
# and test programs unpacked, the environment set, and the machine and the carried programs
# described at the top of summary.txt ($sum). Once only (mode all runs two modes' files).
device_start() {
  [ -z "${DEVICE_STARTED:-}" ] || return 0
  DEVICE_STARTED=1
  local t b
  OUT=${OUT:-/tmp/out}
  mkdir -p "$OUT"
  W=/tmp/gpurun
  rm -rf "$W" && mkdir -p "$W"
  mkdir -p /tmp/carry && tar -C /tmp/carry -xJf .carry/lib.tar.xz
  for t in miniapp miniapp-bench miniapp-tests miniapp-kernel-tests; do # xz by pack-gpu-carry.sh
    [ ! -f ".carry/cuda/$t.xz" ] || xz -d -f ".carry/cuda/$t.xz"
  done
  export LD_LIBRARY_PATH="/tmp/carry/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  export OMP_PROC_BIND=spread OMP_PLACES=threads
  sum="$W/summary.txt"
  log "== $(date -u +%FT%TZ) $(hostname) $(nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader)"
  log "host CPU: $(grep -m1 'model name' "$CPUINFO" | cut -d: -f2) x $(nproc)"
  log "host level: ${CPU_LEVEL:-below x86-64-v3} (OPENBLAS_CORETYPE=${OPENBLAS_CORETYPE:-auto})"
  for b in .carry/cuda/miniapp .carry/cuda/miniapp-bench .carry/gpuhost/miniapp .carry/gpuhost-v3/miniapp; do
    [ -x "$b" ] || continue
    if grep -q "not found" < <(ldd "$b"); then log "MISSING libs for $b:"; ldd "$b" | grep "not found" | tee -a "$sum"; fi
  done
  [ -x .carry/cuda/miniapp ] && .carry/cuda/miniapp info 2>&1 | tee "$W/info.txt" | tail -8
}
# The end of every run: summary.txt packed and printed.
device_finish() {
  save
  log "== done $(date -u +%FT%TZ)"
  save
  cat "$sum"
}
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
# Arguments after the config go to compute-sanitizer (e.g. a kernel filter and a launch count:
# only those launches are instrumented, the rest run at full speed).
racecheck() {
  local limit=$1 cfg=${2:-tests/gpu/racecheck_team_scratch.yaml}
  shift $(($# < 2 ? $# : 2))
  log "== compute-sanitizer racecheck: team-scratch kernels ($cfg${*:+; $*})"
  local out # (.txt, -run: one a config)
  out="$W/racecheck-$(basename "$cfg" .yaml)"
  rm -rf "$W/racecheck-cache"
  MINIAPP_CACHE_DIR="$W/racecheck-cache" timeout "$limit" compute-sanitizer --tool racecheck \
    --racecheck-report hazard --error-exitcode 99 --print-limit 20 "$@" \
    .carry/cuda/miniapp run "$cfg" \
    --output-dir "$out-run" > "$out.txt" 2>&1
  log "racecheck exit $? (0: clean; 99: hazards; 124: timed out; 4: validation failed)"
  # The cases that ended ok counted, every other one named ("[i/N] case: ..."), and racecheck's
  # summary and hazards.
  log "cases ok: $(grep -cE '^\[[0-9]+/[0-9]+\].*: ok' "$out.txt")"
  grep -E "^\[[0-9]+/[0-9]+\]" "$out.txt" | grep -vE ": ok" | head -20 | tee -a "$sum"
  grep -E "RACECHECK SUMMARY|ERROR SUMMARY|Race reported|[Hh]azard" "$out.txt" | head -20 |
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
  python3 "$DEVICE_DIR/bench_rows.py" "$1" "${2:-45}"
}
# Each tile-128 shape row of default-mode bench JSON $1 against the ceiling (the vendor GEMM) that
# config-mode bench JSON $2 attaches to the case of the same precision and size; with $3, the
# fastest shape at 4096 of each precision is written there (precision:shape ...).
shape_ratios() {
  python3 "$DEVICE_DIR/shape_ratios.py" "$1" "$2" "${3:-}"
}
# miniapp-bench's default-mode selection of every tile-128 shape, float32 and float64 (the only
# benchmarks at tile 128 are the register-blocked product's).
SHAPES_FILTER='/float(32|64)/[0-9x]+/tile=128(/|$)'
ncu_gemm() { # $1 precision, $2 shape ("" = the default), $3 file tag, then more run options
  # (the product kernel: its policy alone has LaunchBounds, not the padded copies or split-K sums)
  local prec=$1 shape=$2 tag=$3
  shift 3
  timeout 100 ncu --kernel-name-base demangled -k regex:LaunchBounds --launch-count 1 \
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
# hostgemm (see the header): the carried OpenMP build whose level this CPU runs.
host_build() {
  if [ "$CPU_LEVEL" = x86-64-v4 ] && [ -x .carry/gpuhost/miniapp-bench ]; then echo .carry/gpuhost
  elif [ -n "$CPU_LEVEL" ] && [ -x .carry/gpuhost-v3/miniapp-bench ]; then echo .carry/gpuhost-v3
  fi
}
# Each row of config-mode bench JSON $1 against the ceiling the run attaches (OpenBLAS), and
# (with run directory $2) each `miniapp run` row against its own ceiling and against the bench.
host_gemm_ratios() {
  python3 "$DEVICE_DIR/host_gemm_ratios.py" "$1" "${2:-}" | tee -a "$sum"
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
# ncu on one launch of tiled transpose (tests/gpu/profile_transpose.yaml) at 4096, float32 and
# float64: instructions (per element: thread instructions / 4096^2), issue slots, DRAM bytes.
ncu_transpose() {
  log "== ncu: tests/gpu/profile_transpose.yaml, one launch each"
  for spec in "float32 4096" "float64 4096"; do
    # shellcheck disable=SC2086 # the spec's words are the arguments
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
