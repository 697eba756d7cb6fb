#!/bin/bash
# Generated job scripts against a real one-node Slurm: starts munged + slurmctld + slurmd in a
# scratch directory (local_slurm.sh), submits `miniapp jobscript` scripts for the OpenMP backend
# with 1 and 2 MPI ranks, a config whose results fail validation, and a config broken after its
# script was written; checks job states, exit codes and results files; stops the daemons at exit.
# A machine that cannot start the daemons FAILS this test (it never passes silently).
# Usage: slurm_jobs_test.sh MINIAPP   (as root; KEEP_SCRATCH=1 keeps the scratch directory)
set -euo pipefail
MINIAPP=$(realpath "$1")
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
src=$(cd "$here/../.." && pwd)
PY=/usr/bin/python3
# Jobs are waited for until their own time limits (slurm_test_lib.sh); a stuck test gives up
# 1140 s after the start, inside ctest's TIMEOUT (1200 s).
# shellcheck source=tests/slurm/slurm_test_lib.sh
source "$here/slurm_test_lib.sh" slurm 1140

# This machine's profile, with the node's real core count; and the same with mpirun as launcher.
sed -e "s/^cores_per_node: .*/cores_per_node: $(nproc)/" "$src/jobscripts/systems/local.yaml" >"$scratch/local.yaml"
sed -e 's/^launcher: .*/launcher: mpirun/' -e 's/^launcher_options: .*/launcher_options: []/' \
  "$scratch/local.yaml" >"$scratch/local-mpirun.yaml"

cp "$here/slurmtest.yaml" "$scratch/ok.yaml"
# Float32 matmul cannot meet a 1e-12 relative tolerance against the double host reference:
# the run completes and its rows are marked invalid (exit 4).
sed -e 's/^name: .*/name: slurmfail/' -e 's/^cases:/validation:\n  rtol: 1.0e-12\ncases:/' \
  "$scratch/ok.yaml" >"$scratch/invalid.yaml"
cp "$scratch/ok.yaml" "$scratch/late.yaml"

cd "$scratch" # sbatch runs jobs here; their logs are %x-%j.out
# submit NAME PROFILE CONFIG ARGS...: writes NAME.sh with miniapp jobscript --submit; prints the
# job id.
submit() {
  local name=$1 profile=$2 config=$3 id
  shift 3
  if ! id=$("$MINIAPP" jobscript "$config" --system "$profile" -o "$scratch/$name.sh" --submit "$@"); then
    fail "$name: miniapp jobscript --submit failed"
    return 1
  fi
  [[ $id =~ ^[0-9]+$ ]] || {
    fail "$name: not a job id: '$id'"
    return 1
  }
  echo "$id"
}
# results_ok FILE ID: results.json is complete and records job ID.
results_ok() {
  "$PY" - "$1" "$2" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
md = r["metadata"]
ok = r["complete"] is True and r["status"] == "complete" and md["slurm_job_id"] == sys.argv[2]
ok = ok and r["cases_completed"] == r["cases_planned"] == 3 and all(row["valid"] is True for row in r["results"])
print("complete=%s status=%s slurm_job_id=%s cases=%s/%s SLURM_NTASKS=%s mpi_ranks=%s" % (
    r["complete"], r["status"], md["slurm_job_id"], r["cases_completed"], r["cases_planned"],
    md["slurm"].get("SLURM_NTASKS"), md.get("mpi_ranks")))
sys.exit(0 if ok else 1)
PY
}

# Submit everything first: the jobs queue behind each other on the node.
job1=$(submit one-rank "$scratch/local.yaml" "$scratch/ok.yaml" --ranks-per-node 1 --output-dir "$scratch/runs/one-%j") || true
job2=$(submit two-ranks "$scratch/local.yaml" "$scratch/ok.yaml" --ranks-per-node 2 --results-dir "$scratch/runs2") || true
job3=$(submit invalid "$scratch/local.yaml" "$scratch/invalid.yaml" --output-dir "$scratch/runs/invalid-%j") || true
# A config that was valid when its script was written and is broken when the job starts.
job4=$(submit late "$scratch/local.yaml" "$scratch/late.yaml" --output-dir "$scratch/runs/late-%j") || true
echo "colour: blue" >>"$scratch/late.yaml"
# 2 ranks started by mpirun inside the allocation (profile launcher: mpirun).
job5=$(submit two-ranks-mpirun "$scratch/local-mpirun.yaml" "$scratch/ok.yaml" \
  --ranks-per-node 2 --results-dir "$scratch/runs5") || true
echo "submitted: one-rank=$job1 two-ranks=$job2 invalid=$job3 late=$job4 two-ranks-mpirun=$job5"
for job in job1 job2 job3 job4 job5; do
  [[ -n ${!job} ]] || fail "$job was not submitted"
done

# 1 rank: completes, results in the exact directory asked for, with the job id.
if [[ -n $job1 ]] && wait_job "$job1"; then
  check_job "$job1" COMPLETED 0:0
  f="$scratch/runs/one-$job1/results.json"
  if [[ -f $f ]] && summary=$(results_ok "$f" "$job1"); then pass "job $job1 results: $summary"; else fail "job $job1: $f missing or wrong: ${summary:-}"; fi
  verify "job $job1 log says done" grep -q "miniapp-job: done (exit 0)" "$scratch"/*-"$job1".out
  verify "job $job1 log records the loaded modules" grep -q "miniapp-job: modules:" "$scratch"/*-"$job1".out
fi

# check_two_ranks ID BASE: completed with 2 tasks forming one 2-rank MPI job; today every rank
# writes its own run directory under BASE (-2 suffix for the second): at least one is complete.
check_two_ranks() {
  local id=$1 base=$2 tasks complete=0 f summary
  check_job "$id" COMPLETED 0:0
  tasks=$(field "$id" NumTasks)
  verify "job $id ran NumTasks=$tasks (want 2)" test "$tasks" = 2
  for f in "$base"/slurmtest-*-job"$id"*/results.json; do
    [[ -f $f ]] || continue
    if summary=$(results_ok "$f" "$id"); then
      complete=$((complete + 1))
      echo "  $f: $summary"
      verify "$f: SLURM_NTASKS=2" grep -q '"SLURM_NTASKS": "2"' "$f"
      verify "$f: the ranks formed one MPI job (mpi_ranks=2)" grep -q '"mpi_ranks": 2,' "$f"
    fi
  done
  verify "job $id: $complete complete results dir(s) with its job id (want >= 1)" test "$complete" -ge 1
}
# 2 ranks with srun --mpi=pmix.
if [[ -n $job2 ]] && wait_job "$job2"; then check_two_ranks "$job2" "$scratch/runs2"; fi

# Results that fail validation: the job fails with miniapp's exit code 4.
if [[ -n $job3 ]] && wait_job "$job3"; then
  check_job "$job3" FAILED 4:0
  verify "job $job3 log names the validation failure" grep -q "validation failed (exit 4)" "$scratch"/*-"$job3".out
fi

# A config error when the job starts: the job fails with exit code 2, before any work.
if [[ -n $job4 ]] && wait_job "$job4"; then
  check_job "$job4" FAILED 2:0
  verify "job $job4 log has the config error" grep -q "late.yaml:[0-9]*:[0-9]*: unknown key 'colour'" "$scratch"/*-"$job4".out
  verify "job $job4 created no results dir" test ! -e "$scratch/runs/late-$job4"
fi

# 2 ranks with mpirun.
if [[ -n $job5 ]] && wait_job "$job5"; then check_two_ranks "$job5" "$scratch/runs5"; fi

slurm_test_done "Slurm job"
