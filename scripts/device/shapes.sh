# shellcheck shell=bash disable=SC2154 # $sum: lib.sh's device_start sets it
# shapes: issue 26's tiled_rb tuning: every tile-128 shape against the vendor GEMM, ncu.
# The CUDA matmul tests (every shape at odd sizes; TESTS='*': all of them), every tile-128 tiled_rb
# shape against the vendor GEMM at 4096 and 8192 in one miniapp-bench process, then ncu (registers,
# spill bytes, issue slots, FMA counts) on the default shape and the fastest one of each precision
# at 4096 (PROFILE="float64:SHAPE ...": those instead), the fastest through `miniapp run`
# (tests/gpu/gemm_shapes.yaml; each time beside the benchmark's), and racecheck over every tiled_rb
# shape (tests/gpu/racecheck_tiled_rb.yaml; NO_RACECHECK=1: not).
device_start
export PATH="$PATH:/usr/local/cuda/bin"
cuda_tests "${TESTS:-*Matmul*}" # the matmul tests run every tiled_rb shape at odd sizes
save
log "== miniapp-bench: every tile-128 shape at 4096 and 8192, then tests/gpu/gemm_shapes.yaml (the vendor GEMM ceilings)"
cuda_bench bench-shapes 0.1 --miniapp-sizes=4096,8192 --benchmark_filter="$SHAPES_FILTER"
cuda_bench bench-shapes-ceilings 0.1 --miniapp-config=tests/gpu/gemm_shapes.yaml
shape_ratios "$W/bench-shapes.json" "$W/bench-shapes-ceilings.json" "$W/fastest.txt" | tee -a "$sum"
save
log "== ncu: the default shape and the fastest at 4096 of each precision"
# shellcheck disable=SC2086 # PROFILE's words are specs
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
python3 "$DEVICE_DIR/shapes_run_against_bench.py" "$W/run-gemm-shapes/results.json" "$W/bench-shapes.json" | tee -a "$sum"
save
[ -n "${NO_RACECHECK:-}" ] || racecheck 200 tests/gpu/racecheck_tiled_rb.yaml
