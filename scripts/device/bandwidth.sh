# shellcheck shell=bash disable=SC2154 # $sum: lib.sh's device_start sets it
# bandwidth: tiled transpose against the copy ceiling (was `transpose`).
# The CUDA tests (NO_TESTS=1: not), the configs of tests/gpu/bandwidth.list (configs/transpose.yaml)
# validated, tiled transpose at 4096 and 8192 through `miniapp run` (and at tile 32 with each
# compiled thread grid, tests/gpu/transpose_grids.yaml, and float32 at each compiled tile width,
# tests/gpu/transpose_tiles.yaml) and miniapp-bench against the copy ceiling, ncu on tiled transpose
# float32/float64, racecheck over tiled transpose at every tile width
# (tests/gpu/racecheck_transpose.yaml; NO_RACECHECK=1: not).
device_start
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
