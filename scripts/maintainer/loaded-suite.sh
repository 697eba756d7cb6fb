#!/usr/bin/env bash
# The README's test command (`ctest --preset openmp`) run RUNS times in a row (default 3) with a
# CPU load of twice the host's CPUs beside it (busy shell loops): the tests must not depend on the
# machine's speed (docs/testing.md, "Tests on a busy machine"). Run it from a tree whose README
# build is done (build/openmp). The command runs as the README gives it: one test at a time unless
# CTEST_PARALLEL_LEVEL is set (CI sets it to the cores + 1). Each run's ctest output goes to OUT/run-N.txt; OUT/summary.txt gets
# one line per run: its exit status, seconds, the tests that failed and the load average.
#
#   scripts/maintainer/loaded-suite.sh OUT [RUNS]
#
# Exit 1 when any run failed.
set -euo pipefail
[[ $# -ge 1 && $# -le 2 ]] || {
  echo "usage: scripts/maintainer/loaded-suite.sh OUT [RUNS]" >&2
  exit 2
}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
out=$(mkdir -p "$1" && cd "$1" && pwd) runs=${2:-3}

load_pids=()
stop_load() { if ((${#load_pids[@]})); then kill "${load_pids[@]}" 2>/dev/null || true; fi; }
trap stop_load EXIT
for _ in $(seq $((2 * $(nproc)))); do
  bash -c 'while :; do :; done' &
  load_pids+=($!)
done
sleep 20 # the 1-minute load average climbs towards the new load

status=0
cd "$here"
for i in $(seq "$runs"); do
  start=$(date +%s) before=$(cut -d' ' -f1-3 /proc/loadavg)
  rc=0
  ctest --preset openmp >"$out/run-$i.txt" 2>&1 || rc=$?
  # (no failed test: grep finds nothing, which is not an error here)
  failed=$(sed -n '/tests failed out of/,$p' "$out/run-$i.txt" | { grep -E '^\s+[0-9]+ - ' || true; } |
    awk '{print $3}' | paste -sd' ' -)
  printf 'run %d: exit %d, %d s, load %s at the start and %s at the end, failed: %s\n' \
    "$i" "$rc" $(($(date +%s) - start)) "$before" "$(cut -d' ' -f1-3 /proc/loadavg)" \
    "${failed:-none}" | tee -a "$out/summary.txt"
  [[ $rc == 0 ]] || status=1
done
exit $status
