#!/usr/bin/env bash
# The tiled transpose with float32 tile 64 moved as 2 x 2 blocks (this tree, .carry/cuda/miniapp)
# against the build before it (.carry/cuda/miniapp-old), alternating, two rounds each, float32
# at tiles 32 and 64 and float64 at tile 32, 4096 and 8192; then the CUDA transpose tests,
# racecheck over the pair path at each compiled grid, and ncu at the chain's clock on both builds.
# Run on the GPU machine from the repository root; writes to $OUT.
set -u
export PATH="$PATH:/usr/local/cuda/bin"
mkdir -p /tmp/carry && tar -C /tmp/carry -xJf .carry/lib.tar.xz
export LD_LIBRARY_PATH="/tmp/carry/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
[ ! -f .carry/cuda/miniapp-tests.xz ] || xz -d -f .carry/cuda/miniapp-tests.xz
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > "$OUT/gpu.txt"
cat > /tmp/pairs.yaml <<'YAML'
name: transpose_pairs
description: tiled transpose, float32 tiles 32 and 64, float64 tile 32
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
    precision: float32
    tile: [32, 64]
    n: [4096, 8192]
  - family: transpose
    variant: tiled
    precision: float64
    tile: 32
    n: [4096, 8192]
YAML
for round in 1 2; do
  for b in old new; do
    exe=.carry/cuda/miniapp; [ "$b" = old ] && exe=.carry/cuda/miniapp-old
    $exe run /tmp/pairs.yaml --output-dir "$OUT/run-$b-$round" > "$OUT/run-$b-$round.txt" 2>&1
    echo "== $b round $round: exit $?"
    grep -E "^transpose|copy bandwidth" "$OUT/run-$b-$round.txt"
  done
done
.carry/cuda/miniapp-tests --gtest_brief=1 --gtest_filter='*Transpose*' > "$OUT/cuda-tests.txt" 2>&1
echo "== CUDA transpose tests: exit $?"; tail -2 "$OUT/cuda-tests.txt"
cat > /tmp/rc-pairs.yaml <<'YAML'
name: racecheck_transpose_pairs
description: the pair path of tile 64 at each compiled grid, with edge tiles
backend: auto
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
    precision: [float32, int32]
    m: [192, 130]
    n: [128, 194]
    tile: 64
    team_size: [128, 256, 512]
YAML
timeout 200 compute-sanitizer --tool racecheck --racecheck-report hazard --error-exitcode 99 \
  --print-limit 20 .carry/cuda/miniapp run /tmp/rc-pairs.yaml --output-dir /tmp/rc-pairs \
  > "$OUT/racecheck-pairs.txt" 2>&1
echo "== racecheck, pair path: exit $?; cases ok: $(grep -cE '^\[[0-9]+/[0-9]+\].*: ok' "$OUT/racecheck-pairs.txt")"
grep -E "RACECHECK SUMMARY|[Hh]azard" "$OUT/racecheck-pairs.txt" | head
m=gpu__time_duration.sum,sm__cycles_elapsed.avg,sm__cycles_active.avg,launch__registers_per_thread
m=$m,smsp__inst_executed.sum,smsp__sass_inst_executed_op_global_ld.sum
m=$m,smsp__sass_inst_executed_op_global_st.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum
m=$m,dram__bytes_read.sum,dram__bytes_write.sum
for b in old new; do
  exe=.carry/cuda/miniapp; [ "$b" = old ] && exe=.carry/cuda/miniapp-old
  for n in 4096 8192; do
    timeout 60 ncu --kernel-name-base demangled -k regex:TeamPolicy --launch-skip 3 --launch-count 1 \
      --cache-control none --clock-control none --metrics "$m" \
      $exe run tests/gpu/profile_transpose.yaml --set warmup=3 --set cases.0.tile=64 \
      --set cases.0.n=$n --output-dir "/tmp/ncu-$b-$n" > "$OUT/ncu-$b-tile64-$n.txt" 2>&1
    echo "== ncu $b tile 64 $n: exit $?"
    grep -E "gpu__|sm__|smsp__|l1tex__|dram__|launch__" "$OUT/ncu-$b-tile64-$n.txt" | sed 's/  */ /g'
  done
done
