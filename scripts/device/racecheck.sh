# shellcheck shell=bash disable=SC2154 # $sum: lib.sh's device_start sets it
# racecheck: compute-sanitizer racecheck over every tiled_rb shape and its default choices.
# tests/gpu/racecheck_tiled_rb.yaml (every compiled shape at odd sizes, whole tiles, split-K parts
# and zero-padded operands) under racecheck, with RACECHECK_S seconds (default 540: its 18 cases
# took longer than 170 s on an H200) in one device call; first tests/gpu/racecheck_split_tail.yaml,
# two products too large to instrument whole in that time (a split tail needs more tiles than the
# device holds teams at once), with only the first three launches of the pipelined kernel of
# each instrumented (the float32 one: 8 s on an H200, 2026-11-30).
device_start
export PATH="$PATH:/usr/local/cuda/bin"
racecheck 60 tests/gpu/racecheck_split_tail.yaml --kernel-name kns=matmul_tiled_rb_pipelined \
  --launch-count 6
racecheck "${RACECHECK_S:-540}" tests/gpu/racecheck_tiled_rb.yaml
