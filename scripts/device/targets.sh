# shellcheck shell=bash disable=SC2154 # $sum: lib.sh's device_start sets it
# targets: every row of docs/performance.md's kernel-limits table in one GPU-machine call.
# The CUDA transpose and matmul tests (TESTS: another filter; NO_TESTS=1: none), a raw cudaMemcpy D2D
# built here (scripts/maintainer/memcpy_ceiling.cu), the raw CUDA A^T anchor (scripts/maintainer/transpose_anchor.cu: what
# the classic tile reaches under each way of timing), tests/gpu/targets.yaml through `miniapp run`
# (each row against its same-run ceiling, validated) and the same case ids through miniapp-bench in
# one process (three repetitions of 2 s each), a table of both with run against bench per row
# (within 5% expected), ncu on tiled transpose (GRIDS=1: each thread grid run first), racecheck over
# every transpose tile width (NO_RACECHECK=1: not), then the host GEMM rows (host_gemm; NO_HOST=1:
# not).
device_start
export PATH="$PATH:/usr/local/cuda/bin"
[ -n "${NO_TESTS:-}" ] || cuda_tests "${TESTS:-*Transpose*:*Matmul*}"
save
log "== raw cudaMemcpy device to device, 8192 x 8192 float32 (scripts/maintainer/memcpy_ceiling.cu)"
if nvcc -O2 -o "$W/memcpy_ceiling" scripts/maintainer/memcpy_ceiling.cu > "$W/memcpy.txt" 2>&1; then
  "$W/memcpy_ceiling" 8192 2>&1 | tee -a "$W/memcpy.txt" "$sum"
else log "memcpy_ceiling did not build (see memcpy.txt)"; fi
log "== raw CUDA B = A^T (the classic padded 32 x 33 tile), timed one launch fenced, by events and chained (scripts/maintainer/transpose_anchor.cu)"
if nvcc -O3 -arch=native -o "$W/transpose_anchor" scripts/maintainer/transpose_anchor.cu > "$W/anchor.txt" 2>&1; then
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
python3 "$DEVICE_DIR/targets_table.py" "$W/run-targets/results.json" "$W/bench-targets.json" "$W/memcpy.txt" | tee -a "$sum"
save
[ -z "${GRIDS:-}" ] || transpose_grids
ncu_transpose
[ -n "${NO_RACECHECK:-}" ] || racecheck 240 tests/gpu/racecheck_transpose.yaml
save
[ -n "${NO_HOST:-}" ] || host_gemm
