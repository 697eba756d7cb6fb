#!/bin/bash
# scripts/gpu-run.sh reads the host's x86-64 level from the CPU flags and names OpenBLAS's core
# from it: the GPU machine's Xeon (AVX-512 F, BW, CD, DQ, VL) is x86-64-v4 and SkylakeX, an AVX2
# and FMA CPU x86-64-v3 and Haswell, an older one neither (OpenBLAS picks its own core). Its
# dispatch to scripts/device/<mode>.sh: every mode listed by --help, no other accepted.
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
# The dispatcher: --help lists every mode file of scripts/device/, and a mode that is no file
# there (lib.sh is the library, a path is no mode) exits 2 before the session starts ($OUT made).
help=$(cd "$scratch" && OUT="$scratch/out-help" bash "$script" --help) || { echo "FAIL: --help exits non-zero" >&2; failures=$((failures + 1)); }
for f in "$1"/scripts/device/*.sh; do
  mode=$(basename "$f" .sh)
  [[ $mode == lib ]] && continue
  if grep -q "^  $mode: " <<<"$help"; then echo "ok: --help lists $mode"; else
    echo "FAIL: --help does not list $mode: $help" >&2
    failures=$((failures + 1))
  fi
done
for mode in nosuch lib ../device/lib ALL; do
  rc=0
  (cd "$scratch" && OUT="$scratch/out-bad" bash "$script" "$mode" >/dev/null 2>&1) || rc=$?
  if [[ $rc -eq 2 && ! -e $scratch/out-bad ]]; then echo "ok: mode '$mode' refused (exit 2)"; else
    echo "FAIL: mode '$mode': exit $rc, \$OUT $([[ -e $scratch/out-bad ]] && echo made || echo not made)" >&2
    failures=$((failures + 1))
  fi
done
[[ $failures -eq 0 ]] || exit 1
echo "all cpu-level and dispatch checks passed"
