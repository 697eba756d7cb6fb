# shellcheck shell=bash disable=SC2154 # $sum: lib.sh's device_start sets it
# sizes: issue 44's curve: tiled_rb against the vendor GEMM over sizes, ncu at edge and split-K.
# The CUDA matmul tests (every shape at odd sizes; TESTS: another filter; NO_TESTS=1: none),
# tests/gpu/gemm_sizes.yaml (validated) and gemm_sizes_16384.yaml through `miniapp run`, each row
# against the vendor GEMM of its shape, the first config's cases through miniapp-bench (run against
# bench), the table (scripts/maintainer/gemm_sizes_table.py; NO_RUNS=1: none of these), racecheck over every
# tiled_rb shape (NO_RACECHECK=1: not), ncu on tiled_rb at 4097 (edge tiles) and 1024 (split-K) in
# float32 and float64, and tiled transpose at each tile width and thread grid. About 8 minutes on an
# H200.
device_start
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
  python3 scripts/maintainer/gemm_sizes_table.py "$W/run-gemm_sizes" "$W/run-gemm_sizes_16384" \
    --bench "$W/bench-sizes.json" | tee -a "$sum"
  save
fi
[ -n "${NO_RACECHECK:-}" ] || racecheck 150 tests/gpu/racecheck_tiled_rb.yaml
save
log "== ncu: tiled_rb at 4097 (edge tiles) and 1024 (split-K)"
for spec in "float32 4097" "float64 4097" "float32 1024" "float64 1024"; do
  # shellcheck disable=SC2086 # the spec's words are the arguments
  set -- $spec
  ncu_gemm "$1" "" "$1-$2" --set cases.0.n="$2"
  save
done
transpose_grids
