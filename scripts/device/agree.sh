# shellcheck shell=bash disable=SC2154 # $sum: lib.sh's device_start sets it
# agree: issue 44's checks of the defaults: tests, run against bench, transpose's default tile.
# The CUDA matmul, transpose and autotune tests (TESTS: another filter), then
# tests/gpu/gemm_agreement_sizes.yaml through `miniapp run` (validated, each row against the vendor
# GEMM of its shape, with the tile, shape and split the defaults chose) and through miniapp-bench
# --miniapp-config (the same cases; run against bench, scripts/maintainer/gemm_sizes_table.py),
# then tests/gpu/transpose_default.yaml (the tiled transpose with the tile left to its default)
# beside every tile (transpose_tiles.yaml; NO_TRANSPOSE=1: not). About 6 minutes on an H200.
device_start
export PATH="$PATH:/usr/local/cuda/bin"
cuda_tests "${TESTS:-*Matmul*:*Transpose*:*Autotune*}"
save
log "== miniapp run tests/gpu/gemm_agreement_sizes.yaml"
timeout 200 .carry/cuda/miniapp run tests/gpu/gemm_agreement_sizes.yaml --output-dir "$W/run-agree" \
  > "$W/agree.txt" 2>&1
log "agree run exit $?"
case_rows "$W/agree.txt" | tee -a "$sum"
save
timeout 200 .carry/cuda/miniapp-bench --benchmark_min_time=0.2 \
  --miniapp-config=tests/gpu/gemm_agreement_sizes.yaml \
  --benchmark_out="$W/bench-agree.json" --benchmark_out_format=json > "$W/bench-agree.txt" 2>&1
log "bench agree exit $?"
python3 scripts/maintainer/gemm_sizes_table.py "$W/run-agree" --bench "$W/bench-agree.json" |
  tee -a "$sum"
save
[ -n "${NO_TRANSPOSE:-}" ] && return 0 # (sourced by gpu-run.sh, which then ends the run)
log "== tests/gpu/transpose_default.yaml: each case at its default tile"
rm -rf "$W/tile-cache"
MINIAPP_CACHE_DIR="$W/tile-cache" timeout 120 .carry/cuda/miniapp run \
  tests/gpu/transpose_default.yaml --output-dir "$W/run-default-tile" > "$W/default-tile.txt" 2>&1
log "transpose_default run exit $?"
case_rows "$W/default-tile.txt" | tee -a "$sum"
grep -iE "tile|tuning|autotune" "$W/default-tile.txt" | head -10 | tee -a "$sum"
save
log "== tests/gpu/transpose_tiles.yaml: float32, tile 16 / 32 / 64"
timeout 120 .carry/cuda/miniapp run tests/gpu/transpose_tiles.yaml --output-dir "$W/run-tiles" \
  > "$W/tiles.txt" 2>&1
log "tiles run exit $?"; case_rows "$W/tiles.txt" | tee -a "$sum"
