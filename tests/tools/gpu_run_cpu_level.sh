#!/bin/bash
# scripts/gpu-run.sh reads the host's x86-64 level from the CPU flags and names OpenBLAS's core
# from it: the GPU machine's Xeon (AVX-512 F, BW, CD, DQ, VL) is x86-64-v4 and SkylakeX, an AVX2
# and FMA CPU x86-64-v3 and Haswell, an older one neither (OpenBLAS picks its own core).
# Usage: gpu_run_cpu_level.sh SOURCE_DIR
set -euo pipefail
script=$1/scripts/gpu-run.sh
scratch=$(mktemp -d "${TMPDIR:-/tmp}/miniapp-cpu-level.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
failures=0
check() { # check FLAGS EXPECTED
  printf 'processor\t: 0\nflags\t\t: %s\n' "$1" >"$scratch/cpuinfo"
  local got
  got=$(cd "$scratch" && env -u OPENBLAS_CORETYPE CPUINFO="$scratch/cpuinfo" OUT="$scratch/out" bash "$script" cpu-level 2>&1) || true
  if [[ $got == "$2" ]]; then
    echo "ok: $2"
  else
    echo "FAIL: flags '$1': '$got', expected '$2'" >&2
    failures=$((failures + 1))
  fi
}
base="fpu sse sse2 ssse3 sse4_1 sse4_2 popcnt avx"
check "$base avx2 fma bmi1 bmi2 avx512f avx512dq avx512cd avx512bw avx512vl avx512_vnni avx512_bf16 avx512_fp16" \
  "x86-64-v4 OPENBLAS_CORETYPE=SkylakeX"
check "$base avx2 fma bmi1 bmi2" "x86-64-v3 OPENBLAS_CORETYPE=Haswell"
check "$base avx2 fma avx512f avx512cd" "x86-64-v3 OPENBLAS_CORETYPE=Haswell" # AVX-512 F alone
check "$base" "below x86-64-v3 OPENBLAS_CORETYPE="
[[ $failures -eq 0 ]] || exit 1
echo "all cpu-level checks passed"
