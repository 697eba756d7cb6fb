#!/bin/bash
# Time estimates (plan/estimate.hpp): `validate` prints each case's and the total, from the model
# or from the kernel times of the same case that this host's earlier runs recorded or the history
# database holds (the database's first), and says where its rates come from: the built-in model,
# then this host's calibration once a run recorded it (with that run's error); `run` says where its
# time went; `jobscript` refuses a
# --time below the estimate with its margin (exit 2, one sentence) unless --force, and refuses a
# list of node counts with a sentence pointing at studies.
# Usage: time_estimate_checks.sh MINIAPP
set -euo pipefail
MINIAPP=$(realpath "$1")
CHECK_NAME=estimate
# shellcheck source=tests/slurm/check_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/check_lib.sh"
export MINIAPP_CACHE_DIR="$scratch/cache" # no calibration yet: the built-in model

cat >"$scratch/tiny.yaml" <<'YAML'
name: tiny
backend: auto
warmup: 1
repetitions: 2
cases:
  - family: axpby
    variant: [flat, team]
    n: 64
YAML

# validate: one estimate line per case, and the total.
"$MINIAPP" validate "$scratch/tiny.yaml" >"$scratch/v.out"
if [[ $(grep -c '^  \[[12]\] estimated .* (model)$' "$scratch/v.out") -eq 2 ]] &&
  grep -q '^estimated time: .* s (.* s[^)]*); built-in model rates for a CPU node: ' "$scratch/v.out"; then
  pass "validate prints each case's estimate and the total"
else
  fail "validate's estimate lines: $(cat "$scratch/v.out")"
fi

# The history database: after a run of the same cases on this host is imported, the estimate
# takes their measured kernel times.
"$MINIAPP" run "$scratch/tiny.yaml" --output-dir "$scratch/run1" >"$scratch/run1.out" 2>&1
if grep -q '^time: .* (estimated .*): start-up and results .*, ceilings ' "$scratch/run1.out"; then
  pass "run says where its time went: $(grep '^time: ' "$scratch/run1.out")"
else
  fail "run's time line: $(cat "$scratch/run1.out")"
fi
"$MINIAPP" validate "$scratch/tiny.yaml" >"$scratch/vcal.out"
if grep -q '; calibrated on this host from 1 earlier run(s).*; error on the last 1 run(s): within [0-9]*%$' \
  "$scratch/vcal.out" && [[ -f $MINIAPP_CACHE_DIR/estimates.json ]]; then
  pass "after a run, validate estimates from this host's calibration: $(grep '^estimated' "$scratch/vcal.out")"
else
  fail "validate after a run: $(cat "$scratch/vcal.out")"
fi
# ... and its ceiling at the time that run took to measure it (kept as "ceiling:LEVEL").
if python3 - "$MINIAPP_CACHE_DIR/estimates.json" "$scratch/vcal.out" <<'PY'; then
import json, re, sys
found = []
def walk(x):
    if isinstance(x, list) and len(x) == 3 and isinstance(x[0], str) and x[0].startswith("ceiling:"):
        found.append(x[1])
    elif isinstance(x, (list, dict)):
        for v in (x.values() if isinstance(x, dict) else x):
            walk(v)
walk(json.load(open(sys.argv[1])))
said = re.search(r"of which ceilings ([0-9.]+) (ms|s)\b", open(sys.argv[2]).read())
said_s = float(said.group(1)) / (1000 if said.group(2) == "ms" else 1) if said else None
print(f"ceiling times kept {found}, validate said {said_s}")
sys.exit(0 if len(found) == 1 and said_s is not None and abs(said_s - found[0]) <= 0.05 + 0.05 * found[0] else 1)
PY
  pass "after a run, validate counts each ceiling at the time that run measured it"
else
  fail "the ceiling's time from the run: $(cat "$scratch/vcal.out")"
fi
# ... and each case's kernel time from that run of the same case.
# measured_from OUT SOURCE WHAT: both cases' kernel times measured, SOURCE named on the total line.
measured_from() {
  if [[ $(grep -c '^  \[[12]\] estimated .* (measured kernel time)$' "$1") -eq 2 ]] &&
    grep -q "^estimated time: .*, kernel times of 2 of 2 case(s) from $2" "$1"; then
    pass "$3"
  else
    fail "$3: $(cat "$1")"
  fi
}
measured_from "$scratch/vcal.out" "this host's earlier runs" \
  "after a run, validate takes each case's kernel time from it"
"$MINIAPP" db import --db "$scratch/h.db" "$scratch/run1" >/dev/null
"$MINIAPP" validate "$scratch/tiny.yaml" --db "$scratch/h.db" >"$scratch/vdb.out"
measured_from "$scratch/vdb.out" "the history database" \
  "validate --db takes the measured kernel times of the same cases, before this host's"
# The case id, not the repetitions, names what ran.
"$MINIAPP" validate "$scratch/tiny.yaml" --set repetitions=3 --db "$scratch/h.db" >"$scratch/vdb2.out"
if grep -q '(measured kernel time)' "$scratch/vdb2.out"; then
  pass "the kernel time does not depend on the repetitions (same case id)"
else
  fail "validate --db with other repetitions: $(cat "$scratch/vdb2.out")"
fi
rc=0
"$MINIAPP" validate "$scratch/tiny.yaml" --db "$scratch/missing.db" >/dev/null 2>"$scratch/err" || rc=$?
if [[ $rc -eq 2 ]] && grep -q -- '--db: ' "$scratch/err"; then
  pass "a database that cannot be read: exit 2"
else
  fail "validate --db missing.db exited $rc: $(cat "$scratch/err")"
fi

# jobscript: a --time below the estimate with its margin is refused, --force writes it.
cat >"$scratch/long.yaml" <<'YAML'
name: long
backend: auto
warmup: 1
repetitions: 100000
cases:
  - family: axpby
    variant: flat
    n: 4096
YAML
rc=0
"$MINIAPP" jobscript "$scratch/long.yaml" --system local --time 00:10:00 -o "$scratch/long.sh" \
  >"$scratch/out" 2>"$scratch/err" || rc=$?
if [[ $rc -eq 2 ]] && grep -q 'time limit 00:10:00 is below the estimated .*--force' "$scratch/err" &&
  [[ ! -e $scratch/long.sh ]]; then
  pass "jobscript refuses a --time below the estimate: $(grep 'time limit' "$scratch/err")"
else
  fail "jobscript --time 00:10:00 exited $rc: $(cat "$scratch/err")"
fi
if "$MINIAPP" jobscript "$scratch/long.yaml" --system local --time 00:10:00 --force \
  -o "$scratch/long.sh" 2>"$scratch/err" && grep -q -- '--time=00:10:00' "$scratch/long.sh" &&
  grep -q -- '--force: time limit' "$scratch/err"; then
  pass "jobscript --force writes it, saying so"
else
  fail "jobscript --force: $(cat "$scratch/err")"
fi
# From the built-in model (a cache without calibration), not from the run above: that run's time
# is the machine's, and at a load of 14 on 2 CPUs its ceilings took 30.7 s, which made the tiny
# config's estimate, with its margin, longer than a minute.
if MINIAPP_CACHE_DIR="$scratch/model-only" "$MINIAPP" jobscript "$scratch/tiny.yaml" --system local \
  --time 1 -o "$scratch/tiny.sh" 2>"$scratch/err" && grep -q '^estimated time: ' "$scratch/err"; then
  pass "a one-minute job for a tiny config is accepted, its estimate on stderr"
else
  fail "jobscript tiny --time 1: $(cat "$scratch/err")"
fi

# A list of node counts is a study.
rc=0
"$MINIAPP" jobscript "$scratch/tiny.yaml" --system local --nodes 1,2,4 >"$scratch/out" 2>"$scratch/err" || rc=$?
if [[ $rc -eq 2 ]] && grep -q 'study' "$scratch/err" && ! grep -q 'not in range' "$scratch/err"; then
  pass "jobscript --nodes 1,2,4 points at studies: $(head -n 1 "$scratch/err")"
else
  fail "jobscript --nodes 1,2,4 exited $rc: $(cat "$scratch/err")"
fi

# A shell that ran other work, then exec'd miniapp as its last command (as `bash -c 'setup && run'`
# does): the run's time is its own from the exec on, not the shell's since it started (the
# quickstart run after the README's setup once read 6 min 44 s, and its calibration kept them).
# In a cache of its own, so the calibration checked above stays one run.
MINIAPP_CACHE_DIR="$scratch/cache-exec" bash -c 'sleep 2; date +%s.%N >"$3"
  exec "$0" run "$1" --output-dir "$2"' "$MINIAPP" "$scratch/tiny.yaml" "$scratch/run-exec" \
  "$scratch/exec-start" >"$scratch/exec.out" 2>&1 </dev/null || true
end=$(date +%s.%N)
if python3 - "$scratch/exec.out" "$(cat "$scratch/exec-start")" "$end" <<'PY'; then
import re, sys
line = re.search(r"^time: (.*?) \(estimated", open(sys.argv[1]).read(), re.M)
m = line and re.fullmatch(r"([0-9.]+) s|([0-9]+) min ([0-9]+) s|([0-9]+) h ([0-9]+) min", line.group(1))
if not m:
    sys.exit(1)
said = float(m[1]) if m[1] else 60 * float(m[2]) + float(m[3]) if m[2] else 3600 * float(m[4]) + 60 * float(m[5])
wall = float(sys.argv[3]) - float(sys.argv[2])
print(f"the run said {said} s; {wall:.2f} s passed from the exec to its end")
sys.exit(0 if said <= wall + 0.1 else 1)
PY
  pass "a run exec'd by a shell counts its time from the exec, not the shell's start"
else
  fail "the exec'd run's time line: $(cat "$scratch/exec.out")"
fi

finish_checks "time estimate"
