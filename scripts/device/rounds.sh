# shellcheck shell=bash disable=SC2154 # $sum: lib.sh's device_start sets it
# rounds: noise across runs: --rounds 3 runs twice each, and compare's verdicts.
# quickstart and matmul_tiles with --rounds 3, each twice, compared (`~` expected); classic tiled
# with tile 2 against tile 16 (a real difference); the vendor GEMM ceilings of roofline_demo in two
# consecutive runs.
device_start
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
