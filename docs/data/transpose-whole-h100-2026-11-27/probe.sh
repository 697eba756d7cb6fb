#!/usr/bin/env bash
# The tiled transpose's whole-tile kernel (this tree, .carry/cuda/miniapp) against the kernel
# before it (.carry/cuda/miniapp-old, the build of the previous commit), alternating, two rounds
# each, float32 and float64 at tiles 32 and 64, 4096 and 8192; then the CUDA transpose tests,
# racecheck over whole-tile matrices, and ncu at the chain's clock on the new kernel. Run on the
# GPU machine from the repository root; writes to $OUT.
set -u
export PATH="$PATH:/usr/local/cuda/bin"
mkdir -p /tmp/carry && tar -C /tmp/carry -xJf .carry/lib.tar.xz
export LD_LIBRARY_PATH="/tmp/carry/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
[ ! -f .carry/cuda/miniapp-tests.xz ] || xz -d -f .carry/cuda/miniapp-tests.xz
cat > /tmp/whole.yaml <<'YAML'
name: transpose_whole
description: tiled transpose, whole tiles, tiles 32 and 64
backend: auto
warmup: 2
repetitions: 20
validation:
  enabled: true
output:
  formats: [json]
cases:
  - family: transpose
    variant: tiled
    precision: [float32, float64]
    tile: [32, 64]
    n: [4096, 8192]
YAML
for round in 1 2; do
  for b in old new; do
    exe=.carry/cuda/miniapp; [ "$b" = old ] && exe=.carry/cuda/miniapp-old
    $exe run /tmp/whole.yaml --output-dir "$OUT/run-$b-$round" > "$OUT/run-$b-$round.txt" 2>&1
    echo "== $b round $round: exit $?"
    grep -E "^transpose|ceiling c|copy bandwidth" "$OUT/run-$b-$round.txt"
  done
done
.carry/cuda/miniapp-tests --gtest_brief=1 --gtest_filter='*Transpose*' > "$OUT/cuda-tests.txt" 2>&1
echo "== CUDA transpose tests: exit $?"; tail -2 "$OUT/cuda-tests.txt"
cat > /tmp/rc-whole.yaml <<'YAML'
name: racecheck_transpose_whole
description: whole-tile matrices at each compiled grid
backend: auto
precision: float32
warmup: 0
repetitions: 1
energy: false
validation:
  enabled: true
output:
  formats: [json]
cases:
  - family: transpose
    variant: tiled
    precision: [float32, float64]
    m: 192
    n: 128
    tile: [16, 32, 64]
    team_size: [64, 128, 256, 512]
YAML
timeout 200 compute-sanitizer --tool racecheck --racecheck-report hazard --error-exitcode 99 \
  --print-limit 20 .carry/cuda/miniapp run /tmp/rc-whole.yaml --output-dir /tmp/rc-whole \
  > "$OUT/racecheck-whole.txt" 2>&1
echo "== racecheck, whole tiles: exit $?; cases ok: $(grep -cE '^\[[0-9]+/[0-9]+\].*: ok' "$OUT/racecheck-whole.txt")"
grep -E "RACECHECK SUMMARY|[Hh]azard" "$OUT/racecheck-whole.txt" | head
m=gpu__time_duration.sum,sm__cycles_elapsed.avg,sm__cycles_active.avg,launch__registers_per_thread
m=$m,launch__occupancy_limit_registers,dram__bytes_read.sum
for tile in 32 64; do
  timeout 60 ncu --kernel-name-base demangled -k regex:TeamPolicy --launch-skip 3 --launch-count 1 \
    --cache-control none --clock-control none --metrics "$m" \
    .carry/cuda/miniapp run tests/gpu/profile_transpose.yaml --set warmup=3 --set cases.0.tile="$tile" \
    --set cases.0.n=4096 --output-dir "/tmp/warm-$tile" > "$OUT/ncu-warm-tile$tile-4096.txt" 2>&1
  echo "== ncu tile $tile 4096 warm: exit $?"
  grep -E "gpu__|sm__|dram__|launch__" "$OUT/ncu-warm-tile$tile-4096.txt" | sed 's/  */ /g'
done
