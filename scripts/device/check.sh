# shellcheck shell=bash disable=SC2154 # $sum: lib.sh's device_start sets it
# check: the CUDA tests, the worked examples and transpose validated, run against bench.
# The CUDA tests, every configs/*.yaml worked example and transpose run validated on CUDA,
# racecheck over the team-scratch kernels, transpose against copy bandwidth in the bench, and
# `miniapp run` against `miniapp-bench` for the same kernels (issue 12's agreement).
device_start
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
