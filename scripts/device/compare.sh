# shellcheck shell=bash disable=SC2154 # $sum: lib.sh's device_start sets it
# compare: every row of the GEMM and bandwidth configs against its ceiling (at most 105%).
# The CUDA tests; the configs of tests/gpu/compare.list (quickstart, tests/gpu/gemm.yaml,
# configs/matmul_tiles.yaml, roofline_demo, paper_table1) and paper_table1 pinned on CUDA, every row
# with its level and its share of that level's ceiling (at most 105% expected); the GEMM config a
# second time (the vendor ceiling's stability).
# Every row of run directory $1: case, level, % of its ceiling; rows above 105% are named.
ceiling_check() {
  python3 "$DEVICE_DIR/ceiling_check.py" "$1" | tee -a "$sum"
}
device_start
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
