#!/bin/bash
# `miniapp study submit|status|resubmit|collect` against a real one-node Slurm (local_slurm.sh):
# a strong study of 6 points (1 and 2 ranks, on three profiles: srun, mpirun, and one whose setup
# line fails while a marker file exists) is submitted with its collect job, after a one-point
# study below its estimate (refused; with --force submitted, it times out: status says timeout
# and resubmit submits it again); the collect job must
# start after every point ended (afterany), the history database must hold every finished point,
# the report must show the scaling plot (checked in headless Chromium), status must say done for
# the good points and failed for the broken ones; after the marker is removed, resubmit runs the
# failed points again and they end done. A machine that cannot start the daemons FAILS this test.
# Usage: study_slurm_test.sh MINIAPP   (as root; KEEP_SCRATCH=1 keeps the scratch directory)
set -euo pipefail
MINIAPP=$(realpath "$1")
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
src=$(cd "$here/../.." && pwd)
PY=/usr/bin/python3
# shellcheck source=tests/slurm/slurm_test_lib.sh
# Jobs are waited for until their own time limits; a stuck test gives up inside ctest's TIMEOUT.
source "$here/slurm_test_lib.sh" study 1140 # ctest's TIMEOUT: 1200 s

# Three profiles of this node: srun, mpirun, and one whose setup fails while the marker exists.
sed -e "s/^cores_per_node: .*/cores_per_node: $(nproc)/" "$src/jobscripts/systems/local.yaml" >"$scratch/local.yaml"
sed -e 's/^name: .*/name: local-mpirun/' -e 's/^launcher: .*/launcher: mpirun/' \
  -e 's/^launcher_options: .*/launcher_options: []/' "$scratch/local.yaml" >"$scratch/local-mpirun.yaml"
marker="$scratch/broken-until-removed"
touch "$marker"
sed -e 's/^name: .*/name: flaky/' "$scratch/local.yaml" >"$scratch/flaky.yaml"
printf 'setup:\n  - test ! -e %s\n' "$marker" >>"$scratch/flaky.yaml"

cp "$here/slurmtest.yaml" "$scratch/ok.yaml"
cat >"$scratch/study.yaml" <<'YAML'
name: strong
config: ok.yaml
systems: [local.yaml, local-mpirun.yaml, flaky.yaml]
nodes: [1]
ranks_per_node: [1, 2]
scaling: strong
time: "00:05:00"
YAML
dir="$scratch/strong"
# A point that times out: a one-core profile with a one-minute limit and a case that runs for
# minutes there, submitted with --force over its estimate (Slurm's limits are whole minutes: this
# point costs the test a minute or so, spent before the strong study's jobs start, as they need
# both cores).
sed -e 's/^name: .*/name: slow/' -e 's/^cores_per_node: .*/cores_per_node: 1/' \
  -e 's/^time: .*/time: "00:01:00"/' "$scratch/local.yaml" >"$scratch/slow.yaml"
printf 'name: slow\nrepetitions: 20000\ncases:\n  - family: axpby\n    variant: flat\n    n: 4096\n' \
  >"$scratch/slow-config.yaml"
printf 'name: slow\nconfig: slow-config.yaml\nsystems: [slow.yaml]\nnodes: [1]\nranks_per_node: [1]\n' \
  >"$scratch/slow-study.yaml"

# Refused before anything is submitted: a time limit below a point's estimate.
sed -e 's/^time: .*/time: "00:00:01"/' -e 's/^name: .*/name: tooshort/' "$scratch/study.yaml" >"$scratch/tooshort.yaml"
set +e
out=$("$MINIAPP" study submit "$scratch/tooshort.yaml" 2>&1)
rc=$?
set -e
verify "a time below the estimate: exit 2 ($rc), nothing written: $out" \
  test "$rc" = 2 -a ! -e "$scratch/tooshort"
[[ $out == *"point 1"*"below the estimated"* ]] || fail "the refusal names the point and the estimate: $out"

cd "$scratch"
set +e
"$MINIAPP" study submit "$scratch/slow-study.yaml" >/dev/null 2>"$scratch/slow.err"
rc=$?
set -e
verify "a point below its estimate is refused without --force (exit $rc): $(head -c 300 "$scratch/slow.err")" \
  grep -q "point 1 .*below the estimated" "$scratch/slow.err"
slow=$("$MINIAPP" study submit --force "$scratch/slow-study.yaml") || fail "submit --force of the slow study: $slow"
slow_id=$(sed -n 's/^  \[1\] .*: job \([0-9]*\), .*/\1/p' <<<"$slow")
if ! out=$("$MINIAPP" study submit "$scratch/study.yaml"); then
  fail "study submit failed: $out"
  exit 1
fi
echo "$out"
mapfile -t ids < <(sed -n 's/^  \[[0-9]*\] .*: job \([0-9]*\), .*/\1/p' <<<"$out")
collect=$(sed -n 's/^  collect: job \([0-9]*\) after 6 job(s).*/\1/p' <<<"$out")
verify "6 point jobs and a collect job submitted (${ids[*]}; collect $collect)" \
  test "${#ids[@]}" = 6 -a -n "$collect"
verify "state file written" test -f "$dir/study-state.json"
set +e
"$MINIAPP" study submit "$scratch/study.yaml" >/dev/null 2>&1
rc=$?
set -e
verify "a second submit of the same study is refused (exit $rc)" test "$rc" = 2

verify "the collect job waits on the points (Dependency=$(field "$collect" Dependency))" \
  grep -Eq "afterany:($(IFS="|"; echo "${ids[*]}"))" <<<"$(field "$collect" Dependency)"
wait_job "$collect" || exit 1
for id in "${ids[@]}"; do wait_job "$id" || exit 1; done

# The collect job started after every point had ended (afterany).
collect_start=$(date -d "$(field "$collect" StartTime)" +%s)
for id in "${ids[@]}"; do
  end=$(date -d "$(field "$id" EndTime)" +%s)
  verify "collect job started ($collect_start) after job $id ended ($end)" test "$collect_start" -ge "$end"
done
verify "collect job COMPLETED ($(field "$collect" JobState))" test "$(field "$collect" JobState)" = COMPLETED
cat "$dir"/miniapp-strong-collect-"$collect".out || true

status=$("$MINIAPP" study status "$scratch/study.yaml")
echo "$status"
for i in 1 2 3 4; do
  verify "point $i done, results complete" grep -q "^  \[$i\] .*: done (job ${ids[$((i - 1))]}), results complete, 3 of 3 case(s)" <<<"$status"
done
for i in 5 6; do
  verify "point $i failed, Slurm's reason said, no results" grep -q "^  \[$i\] flaky: .*: failed (job ${ids[$((i - 1))]}: NonZeroExitCode), results none yet" <<<"$status"
done
verify "collect done" grep -q "^  collect: done (job $collect)" <<<"$status"
verify "summary: 4 done, 2 failed" grep -q "^points: 4 done, 2 failed" <<<"$status"

# The history database holds every finished point, each with its 3 rows.
"$PY" - "$dir/history.db" "$dir" <<'PY' || fail "history database"
import sqlite3, sys, os
db = sqlite3.connect(sys.argv[1])
runs = db.execute("SELECT source, ranks, complete FROM runs ORDER BY source").fetchall()
want = [os.path.join(sys.argv[2], "results", f"point-{i}") for i in (1, 2, 3, 4)]
got = [os.path.realpath(s) for s, _, _ in runs]
assert got == [os.path.realpath(w) for w in want], f"runs {runs}, want {want}"
assert [r for _, r, _ in runs] == [1, 2, 1, 2], f"ranks {runs}"
rows = db.execute("SELECT COUNT(*) FROM rows").fetchone()[0]
assert rows == 12, f"{rows} rows, want 12"
print(f"ok: history database holds the 4 finished points, {rows} rows")
PY

# The report: the scaling plot (2 systems x 3 cases, at 1 and 2 ranks) as Chromium renders it.
"$PY" "$here/check_study_report.py" "$dir/report/index.html" 6 2 || fail "the study report"

# resubmit: the failed points run again and end done; the collect job runs again after them.
rm -f "$marker"
if ! out=$("$MINIAPP" study resubmit "$scratch/study.yaml"); then fail "resubmit: $out"; fi
echo "$out"
mapfile -t again < <(sed -n 's/^  \[[56]\] resubmitted: job \([0-9]*\)$/\1/p' <<<"$out")
collect2=$(sed -n 's/^  collect: job \([0-9]*\) after 2 job(s)$/\1/p' <<<"$out")
verify "points 5 and 6 resubmitted (${again[*]}), a new collect job ($collect2)" \
  test "${#again[@]}" = 2 -a -n "$collect2"
for id in "${again[@]}" "$collect2"; do wait_job "$id" || exit 1; done
status=$("$MINIAPP" study status "$scratch/study.yaml")
echo "$status"
verify "after resubmit: 6 done" grep -q "^points: 6 done$" <<<"$status"
verify "after resubmit: nothing more to resubmit" grep -q "nothing to resubmit" \
  <<<"$("$MINIAPP" study status --resubmit "$scratch/study.yaml")"
"$PY" "$here/check_study_report.py" "$dir/report/index.html" 9 2 || fail "the study report after resubmit"

# The slow point timed out: status says so, and resubmit submits it again (cancelled at once).
wait_job "$slow_id" || exit 1
status=$("$MINIAPP" study status "$scratch/slow-study.yaml")
echo "$status"
verify "the slow point: timeout (Slurm: $(field "$slow_id" JobState))" \
  grep -q "^  \[1\] slow: .*: timeout (job $slow_id: TimeLimit), results " <<<"$status"
verify "summary: 1 timeout" grep -q "^points: 1 timeout$" <<<"$status"
out=$("$MINIAPP" study resubmit "$scratch/slow-study.yaml") || fail "resubmit of the slow study: $out"
slow_again=$(sed -n 's/^  \[1\] resubmitted: job \([0-9]*\)$/\1/p' <<<"$out")
verify "the timed-out point resubmitted (job $slow_again)" test -n "$slow_again"
scancel "$slow_again" 2>/dev/null || true

slurm_test_done study
