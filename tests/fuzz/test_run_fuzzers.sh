#!/usr/bin/env bash
# run_fuzzers.sh against stand-in targets (no fuzz build needed): every target passing gives exit
# 0 and one "ok" line per target with its run count; one target failing gives exit 1, its report,
# and still the other targets' lines. The summary once stopped the script silently after the
# first target under `set -e`, failing CI with no word of why.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/miniapp-run-fuzzers.XXXXXX")
trap 'rm -rf "$work"' EXIT
names=(config jobscript results history_db references template study_state ceiling_cache autotune_cache resumed)

make_targets() { # make_targets FAILING: stand-ins that pass, except FAILING (or none)
  rm -rf "$work/build"
  mkdir -p "$work/build/bin"
  local name
  for name in "${names[@]}"; do
    if [ "$name" = "$1" ]; then
      printf '#!/bin/sh\necho "==42== ERROR: libFuzzer: deadly signal"\necho "SUMMARY: libFuzzer: deadly signal"\nexit 77\n' \
        >"$work/build/bin/miniapp-fuzz-$name"
    else
      printf '#!/bin/sh\necho "stat::number_of_executed_units: 7"\nexit 0\n' >"$work/build/bin/miniapp-fuzz-$name"
    fi
    chmod +x "$work/build/bin/miniapp-fuzz-$name"
  done
}
fail() { echo "test_run_fuzzers: $*" >&2; exit 1; }

make_targets none
rc=0
FUZZ_JOBS=2 "$here/run_fuzzers.sh" "$work/build" 0 >"$work/out" 2>&1 || rc=$?
[ "$rc" -eq 0 ] || { cat "$work/out"; fail "all targets pass, yet exit $rc"; }
for name in "${names[@]}"; do
  grep -q "^fuzz $name: ok, 7 runs" "$work/out" || { cat "$work/out"; fail "no ok line for $name"; }
done

make_targets results
rc=0
FUZZ_JOBS=2 "$here/run_fuzzers.sh" "$work/build" 0 >"$work/out" 2>&1 || rc=$?
[ "$rc" -eq 1 ] || { cat "$work/out"; fail "a target fails, yet exit $rc"; }
grep -q "^fuzz results: FAILED" "$work/out" || { cat "$work/out"; fail "no FAILED line for results"; }
grep -q "deadly signal" "$work/out" || { cat "$work/out"; fail "the failing target's report is missing"; }
for name in config jobscript history_db references template; do
  grep -q "^fuzz $name: ok, 7 runs" "$work/out" || { cat "$work/out"; fail "no ok line for $name"; }
done
echo "test_run_fuzzers: ok"
