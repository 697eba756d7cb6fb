# shellcheck shell=bash disable=SC2154 # $sum: lib.sh's device_start sets it
# gemm: issue 12's GEMM figures: the CUDA tests, tests/gpu/gemm.yaml run and benched, ncu.
# The CUDA tests, tests/gpu/gemm.yaml through `miniapp run` and the same kernels (every tiled_rb
# shape too) through miniapp-bench, ncu on tiled_rb float32/float64 and classic tiled 32.
device_start
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
  # shellcheck disable=SC2086 # the spec's words are the arguments
  set -- $spec
  timeout 100 ncu --kernel-name-base demangled -k regex:TeamPolicy --launch-count 1 \
    --section LaunchStats --section Occupancy --section SchedulerStats --section WarpStateStats \
    --section SpeedOfLight --section ComputeWorkloadAnalysis \
    --metrics l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,smsp__inst_executed_op_shared_ld.sum,smsp__sass_thread_inst_executed_op_ffma_pred_on.sum,smsp__sass_thread_inst_executed_op_dfma_pred_on.sum,l1tex__t_bytes_pipe_lsu_mem_local_op_ld.sum \
    .carry/cuda/miniapp run tests/gpu/profile_gemm.yaml --set cases.0.variant="$1" \
    --set cases.0.precision="$2" --set cases.0.tile="$3" --output-dir "$W/ncu-run-$1-$2" \
    > "$W/ncu-$1-$2-$3.txt" 2>&1
  log "ncu $spec exit $?"
  grep -E "Registers Per Thread|Achieved Occupancy|Issue Slots Busy|No Eligible|Block Limit Registers|Compute \(SM\) Throughput|Memory Throughput|Duration|bank_conflicts|wavefronts|inst_executed_op_shared|op_ffma|op_dfma|local_op_ld" \
    "$W/ncu-$1-$2-$3.txt" | sed 's/  */ /g' | tee -a "$sum"
  save
done
