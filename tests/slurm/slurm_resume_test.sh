#!/bin/bash
# A job that runs out of time, resubmitted, against a real one-node Slurm (local_slurm.sh):
# `miniapp jobscript` refuses a --time below the estimate (exit 2, nothing written); with --force the
# script is submitted, Slurm's warning (#SBATCH --signal=B:USR1@30) stops the run after its current
# case, the job ends TIMEOUT with the cases that ran kept; the same script submitted again resumes
# into the same results directory and completes it: every case exactly once, validated. A third
# submission has nothing left to run. Slurm's time limits are whole minutes, checked every 30 s:
# the first job takes 60 to 90 s, the whole test about two minutes on a quiet machine. The second
# job's time limit comes from the first job's pace on this machine, never from a guess of it.
# Usage: slurm_resume_test.sh MINIAPP   (as root; KEEP_SCRATCH=1 keeps the scratch directory)
set -euo pipefail
MINIAPP=$(realpath "$1")
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
src=$(cd "$here/../.." && pwd)
PY=/usr/bin/python3
# Jobs are waited for until their own time limits (slurm_test_lib.sh); a stuck test gives up
# 1140 s after the start, inside ctest's TIMEOUT (1200 s).
# shellcheck source=tests/slurm/slurm_test_lib.sh
source "$here/slurm_test_lib.sh" resume 1140
sed -e "s/^cores_per_node: .*/cores_per_node: $(nproc)/" "$src/jobscripts/systems/local.yaml" >"$scratch/local.yaml"

# 40 cases of about a second each on 2 cores: estimated above what a one-minute limit covers with
# its margin, and running longer than the 30 s after which the warning comes at the latest.
cat >"$scratch/long.yaml" <<'YAML'
name: resumetest
backend: openmp
warmup: 1
repetitions: 3
cases:
  - family: matmul
    variant: flat
    n: 768
    seed: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20,
           21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40]
YAML
planned=40
runs=$scratch/runs/resume
cd "$scratch"

# results STATE: results.json's status; for "complete", every case exactly once and validated, and
# the earlier jobs recorded.
results() {
  "$PY" - "$runs/results.json" "$runs/results.csv" "$planned" "$@" <<'PY'
import csv, json, sys
path, csv_path, planned, want = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
d = json.load(open(path))
rows = list(csv.DictReader(open(csv_path, newline="")))
cases = [r["case"] for r in d["results"]]
print(f"status={d['status']} cases_completed={d['cases_completed']}/{d['cases_planned']} "
      f"job={d['metadata']['slurm_job_id']} resumed={[r.get('slurm_job_id') for r in d['metadata'].get('resumed', [])]}")
ok = d["status"] == want and d["cases_planned"] == planned
ok = ok and all(r["status"] == "ok" and r["valid"] is True for r in d["results"])
ok = ok and [int(r["case"]) for r in rows] == cases == sorted(set(cases))
if want == "interrupted":
    ok = ok and 1 <= len(cases) < planned
else:
    ok = ok and cases == list(range(planned)) and d["complete"] is True
    ok = ok and [r.get("slurm_job_id") for r in d["metadata"]["resumed"]] == sys.argv[5:]
sys.exit(0 if ok else 1)
PY
}

# 1. A time limit below the estimate with its margin: refused before anything is written.
if "$MINIAPP" jobscript long.yaml --system "$scratch/local.yaml" --time 1 --output-dir "$runs" \
  -o job.sh 2>refused.err; then
  fail "a --time of 1 minute below the estimate was accepted"
else
  code=$?
  verify "--time below the estimate: exit 2" test "$code" -eq 2
  verify "the refusal says why" grep -q "time limit 1 is below the estimated .* --force" refused.err
  verify "nothing written" test ! -e job.sh
fi

# 2. --force: submitted; warned 30 s before the limit, stopped after a case, TIMEOUT.
if ! job1=$("$MINIAPP" jobscript long.yaml --system "$scratch/local.yaml" --time 1 \
  --output-dir "$runs" -o job.sh --force --submit); then
  echo "FAIL: miniapp jobscript --force --submit failed" >&2
  exit 1
fi
verify "the script asks for the warning" grep -qx '#SBATCH --signal=B:USR1@30' job.sh
wait_job "$job1" || true
check_job "$job1" TIMEOUT
echo "job $job1 ended $(($(date +%s) - started)) s after the start"
verify "job $job1: jobcomp records TIMEOUT" grep -q "JobId=$job1 .*JobState=TIMEOUT" "$scratch/slurm/log/jobcomp.txt"
log1=$(ls "$scratch"/*-"$job1".out)
verify "job $job1 log: warned" grep -q "time limit in about 30 s: the run stops after its current case" "$log1"
verify "job $job1 log: stopped, resubmit" grep -q "submit this script again" "$log1"
verify "job $job1 cut no case short" bash -c "! grep -q 'stopped by a signal before the case completed' '$log1'"
verify "job $job1 kept some cases, interrupted" results interrupted

# 3. The same script again, with a limit for the cases left at three times job 1's pace (its
# whole time over the cases it ran: start-up and the stop included): resumes into the same
# directory and completes it.
ran=$("$PY" -c 'import json, sys; print(len(json.load(open(sys.argv[1]))["results"]))' "$runs/results.json")
elapsed=$(($(date -d "$(field "$job1" EndTime)" +%s) - $(date -d "$(field "$job1" StartTime)" +%s)))
minutes=$(((3 * elapsed * (planned - ran) / ran + 59) / 60 + 1))
# At most what the partition allows (a longer limit pends forever) and what the test has left
# after it (job 4 needs two minutes at most): on a machine that slow the job may still finish.
most=$(scontrol show partition local -o | tr ' ' '\n' | sed -n 's/^MaxTime=//p')
most=$(($(slurm_seconds "$most") / 60))
left=$(((deadline - $(date +%s) - 180) / 60))
((minutes <= most)) || minutes=$most
((minutes <= left)) || minutes=$left
echo "job $job1 ran $ran case(s) in $elapsed s: job 2 gets $minutes min for $((planned - ran))"
if ! job2=$(sbatch --parsable --time="$minutes" job.sh); then
  echo "FAIL: sbatch of the script again failed" >&2
  exit 1
fi
wait_job "$job2" || true
check_job "$job2" COMPLETED 0:0
echo "job $job2 ended $(($(date +%s) - started)) s after the start"
verify "job $job2 log: resumed" grep -q "miniapp-job: resuming the run in $runs" "$scratch"/*-"$job2".out
verify "every case exactly once, validated; job $job1 recorded" results complete "$job1"

# 4. Once more: nothing left to run, the results untouched. With job 2's limit, not the script's
# one minute: its warning 30 s in once reached a rank srun had not yet started, under load.
before=$(sha256sum "$runs/results.json")
if job3=$(sbatch --parsable --time="$minutes" job.sh); then
  wait_job "$job3" || true
  check_job "$job3" COMPLETED 0:0
  verify "job $job3 log: nothing to run" grep -q "nothing to run: all $planned case(s) are in" "$scratch"/*-"$job3".out
  verify "results.json untouched" test "$before" == "$(sha256sum "$runs/results.json")"
else
  fail "sbatch of the script a third time failed"
fi

slurm_test_done "Slurm resume"
