# shellcheck shell=bash disable=SC2154 # $sum: lib.sh's device_start sets it
# sanitize: compute-sanitizer memcheck over the CUDA kernel tests, racecheck over team scratch.
# Memcheck over the CUDA kernel tests and racecheck over a run of every team-scratch kernel
# (tests/gpu/racecheck_team_scratch.yaml), within one 10-minute device call; results in
# docs/testing.md.
device_start
export PATH="$PATH:/usr/local/cuda/bin"
# The kernel tests in one precision (float32) plus the worked examples: every kernel and variant
# at awkward sizes, in a few minutes under memcheck (~10-50x slower than plain).
log "== compute-sanitizer memcheck: CUDA kernel tests (float32) and worked examples"
timeout 360 compute-sanitizer --tool memcheck --error-exitcode 99 --print-limit 20 \
  .carry/cuda/miniapp-kernel-tests --gtest_brief=1 \
  --gtest_filter='AllBackends/Kernels.*/cuda_float32:AllBackends/WorkedExamples.*/cuda' \
  > "$W/memcheck.txt" 2>&1
rc=$?
log "memcheck exit $rc (0: clean; 99: memcheck errors; 124: timed out; other: tests failed)"
grep -E "ERROR SUMMARY|tests? (ran|passed)|FAILED" "$W/memcheck.txt" | head -20 | tee -a "$sum"
save
racecheck 180
save
