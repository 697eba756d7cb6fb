# shellcheck shell=bash disable=SC2154 # $sum: lib.sh's device_start sets it
# odd: issue 44's odd sizes: the rule on sizes it names and on others, and each kernel's time.
# The CUDA matmul tests (TESTS: another filter), tests/gpu/gemm_sizes.yaml and
# gemm_sizes_other.yaml through `miniapp run` (validated; each odd size against its nearest
# multiple of 128: scripts/maintainer/gemm_sizes_table.py), then ncu's duration of each kernel of
# one float32 product at 2049, 4095, 4097 and 1024: the padded copies of A and B, the product, the
# split-K sums. About 8 minutes on an H200.
device_start
export PATH="$PATH:/usr/local/cuda/bin"
cuda_tests "${TESTS:-*Matmul*}"
save
for cfg in tests/gpu/gemm_sizes.yaml tests/gpu/gemm_sizes_other.yaml; do
  name=$(basename "$cfg" .yaml)
  log "== miniapp run $cfg"
  timeout 240 .carry/cuda/miniapp run "$cfg" --output-dir "$W/run-$name" > "$W/$name.txt" 2>&1
  log "$name run exit $?"
  python3 scripts/maintainer/gemm_sizes_table.py "$W/run-$name" > "$W/table-$name.md"
  grep -A40 '^odd sizes' "$W/table-$name.md" | tee -a "$sum"
  save
done
log "== ncu: each kernel of one float32 product (copy: a padded operand; sum: split-K's parts)"
for n in 2049 4095 4097 1024; do
  timeout 60 ncu --kernel-name-base demangled -k regex:'copy_zero_padded|matmul_tiled_rb_pipelined' \
    --launch-count 4 --section SpeedOfLight .carry/cuda/miniapp run tests/gpu/profile_gemm.yaml \
    --set cases.0.n="$n" --output-dir "$W/ncu-run-parts-$n" > "$W/ncu-parts-$n.txt" 2>&1
  log "ncu $n exit $?"
  awk -v n="$n" '/Context [0-9]+, Stream/ {
      k = $0 ~ /copy_zero_padded/ ? "copy" : ($0 ~ /LaunchBounds/ ? "product" : "sum")
      g = $0; sub(/.*\(T1\) /, "", g); sub(/, Context.*/, "", g) }
    /Duration/ { print "  " n, k, g, $3, $2 }' "$W/ncu-parts-$n.txt" | tee -a "$sum"
  save
done
