#!/bin/bash
# `miniapp study plan` (jobs/study.hpp, app/cmd_study.cpp): a study file read strictly, one line
# per point with its ranks, grid, sizes and estimate; weak scaling grows m and n with the process
# grid (no hand-written sizes) and each point's sizes run validated on that many MPI ranks; every
# point is checked as `jobscript` checks a job, and a bad one refused before anything else.
# Usage: study_plan_checks.sh MINIAPP
set -euo pipefail
MINIAPP=$(realpath "$1")
CHECK_NAME=study
# shellcheck source=tests/slurm/check_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/check_lib.sh"

# A profile with 4 cores, so 1, 2 and 4 OpenMP ranks fit one node.
cat >"$scratch/four.yaml" <<'YAML'
name: four
backend: openmp
cores_per_node: 4
max_nodes: 1
time: "00:05:00"
YAML
cat >"$scratch/summa.yaml" <<'YAML'
name: summa
backend: auto
warmup: 1
repetitions: 1
cases:
  - family: matmul
    variant: flat
    n: 32
YAML
cat >"$scratch/weak.yaml" <<'YAML'
name: weak
config: summa.yaml
systems: [four.yaml]
nodes: [1]
ranks_per_node: [1, 2, 4]
scaling: weak
YAML

# plan_ok NAME STUDY ARGS...: exit 0, output in $scratch/NAME.out
plan_ok() {
  local name=$1
  shift
  if "$MINIAPP" study plan "$@" >"$scratch/$name.out" 2>"$scratch/$name.err"; then
    pass "$name: study plan exits 0"
  else
    fail "$name: study plan failed: $(cat "$scratch/$name.err")"
  fi
}
has() {
  if grep -Eq -- "$2" "$scratch/$1.out"; then pass "$1: has /$2/"; else fail "$1: no line /$2/ in: $(cat "$scratch/$1.out")"; fi
}

plan_ok weak "$scratch/weak.yaml"
has weak '^study weak: 3 point\(s\), weak scaling'
has weak '^  \[1\] four: 1 node\(s\) x 1 rank\(s\) per node = 1 rank\(s\), grid 1x1, 1 case\(s\) 32x32x32, estimated .* s, time limit 00:05:00$'
has weak '^  \[2\] .* = 2 rank\(s\), grid 1x2, 1 case\(s\) 32x64x32, estimated'
has weak '^  \[3\] .* = 4 rank\(s\), grid 2x2, 1 case\(s\) 64x64x32, estimated'
has weak '^estimated time of all points: '

# Every weak point's sizes run and validate on its rank count, from the plan's own --set line.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
mpi=(mpirun --oversubscribe)
for point in 2 3; do
  ranks=$((point == 2 ? 2 : 4))
  mapfile -t sets < <(awk -v p="$point" '/^  \[/ {i++} i == p && /^      --set / {for (f = 2; f <= NF; ++f) print $f}' "$scratch/weak.out")
  if [[ ${#sets[@]} -eq 3 ]] &&
    "${mpi[@]}" -n "$ranks" "$MINIAPP" run "$scratch/summa.yaml" --kokkos-num-threads=1 --set "${sets[@]}" \
      --output-dir "$scratch/weak-$ranks" >/dev/null 2>"$scratch/run.err" &&
    python3 - "$scratch/weak-$ranks/results.json" "$ranks" <<'PY'; then
import json, sys
doc = json.load(open(sys.argv[1]))
rows = doc["results"]
assert doc["complete"] is True and len(rows) == 1, doc
assert all(r["valid"] is True and r["ranks"] == int(sys.argv[2]) for r in rows), rows
PY
    pass "weak point $point (${sets[*]}) ran validated on $ranks ranks"
  else
    fail "weak point $point on $ranks ranks: sets '${sets[*]:-}': $(cat "$scratch/run.err" 2>/dev/null)"
  fi
done

# Strong scaling: the sizes stay.
sed -e 's/^scaling: weak/scaling: strong/' -e 's/^name: weak/name: strong/' "$scratch/weak.yaml" >"$scratch/strong.yaml"
plan_ok strong "$scratch/strong.yaml"
has strong '^  \[3\] .* = 4 rank\(s\), grid 2x2, 1 case\(s\) 32x32x32, estimated'
if grep -q -- '--set' "$scratch/strong.out"; then fail "strong: sizes overridden"; else pass "strong: no size overrides"; fi

# refuse CODE PATTERN STUDY-TEXT [ARGS]: the study is refused with CODE and a message matching.
refuse() {
  local code=$1 pattern=$2 rc=0
  printf '%s' "$3" >"$scratch/bad.yaml"
  shift 3
  "$MINIAPP" study plan "$scratch/bad.yaml" "$@" >"$scratch/out" 2>"$scratch/err" || rc=$?
  if [[ $rc -eq $code ]] && grep -Eq -- "$pattern" "$scratch/err"; then
    pass "refused ($rc): $(head -n 1 "$scratch/err" | head -c 200)"
  else
    fail "study exited $rc (want $code), stderr: $(cat "$scratch/err")"
  fi
  if [[ -s $scratch/out ]]; then fail "a refused study printed a plan"; fi
}
base=$(cat "$scratch/weak.yaml")
refuse 2 "bad.yaml:2:1: unknown key 'scalng'.*did you mean 'scaling'" \
  "$(printf 'name: b\nscalng: weak\nconfig: summa.yaml\nsystems: [four.yaml]\nnodes: [1]\nranks_per_node: [1]\n')"
refuse 2 "bad.yaml:6:10: scaling 'wek' is not strong or weak; did you mean 'weak'" "${base/scaling: weak/scaling: wek}"
refuse 2 "bad.yaml:5:24: ranks_per_node 2 is listed twice" "${base/\[1, 2, 4\]/[1, 2, 2]}"
refuse 2 "bad.yaml:4:9: nodes 0 is out of range" "${base/nodes: \[1\]/nodes: [0]}"
refuse 2 "bad.yaml:1:1: missing required key 'systems'|bad.yaml.*systems" "$(grep -v '^systems' <<<"$base")"
refuse 2 "the study has 3003 points" "${base/nodes: \[1\]/nodes: [$(seq -s, 1 1001)]}"
refuse 2 "bad.yaml:7:7: time '1h' is not a Slurm time" "$base"$'\n''time: 1h'
# A point the job would refuse: 4 ranks per node on a node of 4 cores is fine, 8 is not; the
# refusal names the point and nothing is printed.
refuse 2 "point 3 \(.*four.yaml: 1 node\(s\) x 8 rank\(s\) per node\): 8 ranks per node exceed the 4 cores" "${base/\[1, 2, 4\]/[1, 2, 8]}"
# A case that cannot be distributed (tile_index: one rank only) is refused at its rank count.
cat >"$scratch/one.yaml" <<'YAML'
name: one
cases:
  - family: tile_index
    variant: team
    n: 32
YAML
refuse 2 "point 2 \(.*four.yaml: 1 node\(s\) x 2 rank\(s\) per node\): .*one.yaml:[0-9]+:[0-9]+: " "${base/summa.yaml/one.yaml}"
# Weak scaling of a swept n whose m and k default to it would multiply the lists: refused.
sed 's/    n: 32/    n: [32, 64]/' "$scratch/summa.yaml" >"$scratch/swept.yaml"
refuse 2 "swept.yaml:8:9: weak scaling grows m and n apart and keeps k: with n swept, write m and k" "${base/summa.yaml/swept.yaml}"
# A time limit below a point's estimate: refused, kept with --force.
cat >"$scratch/long.yaml" <<'YAML'
name: long
repetitions: 100000
cases:
  - family: axpby
    variant: flat
    n: 4096
YAML
long=$(printf 'name: l\nconfig: long.yaml\nsystems: [four.yaml]\nnodes: [1]\nranks_per_node: [1]\ntime: "00:10:00"\n')
refuse 2 "point 1 .*time limit 00:10:00 is below the estimated" "$long"
if "$MINIAPP" study plan "$scratch/bad.yaml" --force >"$scratch/out" 2>&1 &&
  grep -q 'time limit 00:10:00 (below the estimate: --force)' "$scratch/out"; then
  pass "study plan --force keeps the point, saying so"
else
  fail "study plan --force: $(cat "$scratch/out")"
fi

# A list of node counts on jobscript points at studies (and the shipped studies plan).
src=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
plan_ok shipped "$src/configs/studies/strong_local.yaml"
has shipped '^  \[2\] local: 1 node\(s\) x 2 rank\(s\) per node = 2 rank\(s\), grid 1x2'
plan_ok shipped_weak "$src/configs/studies/weak_local.yaml"
has shipped_weak '^  \[2\] local: 1 node\(s\) x 2 rank\(s\) per node = 2 rank\(s\), grid 1x2, 3 case\(s\) 4096x8192, '
has shipped_weak '^      --set cases.0.m=\[4096\] cases.0.n=\[8192\]$'

finish_checks "study plan"
