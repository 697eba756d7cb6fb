#!/bin/bash
# wait_job (job_wait.sh) against a scripted `scontrol`: it waits through every state a job passes
# (PENDING, CONFIGURING, RUNNING, SIGNALING while Slurm delivers a --signal warning, COMPLETING)
# and returns at the first state the job cannot leave; a running job past its time limit with the
# slack fails. No Slurm and no clock of this machine's speed: the states come from a list, one a
# poll.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }
sleep() { :; } # the polls' pauses: the states advance a poll at a time
started=$(date +%s)
deadline=$((started + 20))
# shellcheck source=tests/slurm/job_wait.sh
source "$here/job_wait.sh"

states=() start_time=""
# The polls so far, in a file: wait_job reads each field in a subshell.
polls=$(mktemp)
trap 'rm -f "$polls"' EXIT
# As `scontrol show job -o ID` prints it: each JobState read advances to the next state of the
# list (the last one stays).
slurm_cmd() {
  local n i
  n=$(<"$polls")
  i=$((n < ${#states[@]} ? n : ${#states[@]} - 1))
  echo "JobId=$4 JobState=${states[$i]} Reason=None StartTime=$start_time TimeLimit=00:01:00"
}
field() { # field ID KEY, counting the JobState reads
  local v
  v=$(slurm_cmd scontrol show job -o "$1" | tr ' ' '\n' | sed -n "s/^$2=//p")
  [[ $2 == JobState ]] && echo $(($(<"$polls") + 1)) >"$polls"
  echo "$v"
}
# expect_wait NAME RC STATES...: wait_job returns RC, having read the last state.
expect_wait() {
  local name=$1 want=$2 rc=0 before=$failures
  shift 2
  states=("$@")
  echo 0 >"$polls"
  wait_job 7 2>/dev/null || rc=$?
  failures=$before # wait_job's own fail() when it gives up: expected or not, judged here
  if [[ $rc -ne $want ]]; then
    fail "$name: wait_job returned $rc, want $want"
  elif [[ $want -eq 0 && $(<"$polls") -lt ${#states[@]} ]]; then
    fail "$name: returned after $(<"$polls") of ${#states[@]} states"
  else
    echo "ok: $name"
  fi
}

start_time=$(date -d @"$started" +%Y-%m-%dT%H:%M:%S)
expect_wait "the warning's SIGNALING is waited through" 0 \
  PENDING CONFIGURING RUNNING RUNNING SIGNALING SIGNALING RUNNING COMPLETING TIMEOUT
expect_wait "other passing states too" 0 RUNNING STAGE_OUT RESIZING SUSPENDED RUNNING COMPLETED
expect_wait "a failed job ends the wait" 0 PENDING FAILED
# Started 10 minutes ago with a one-minute limit: stuck, whatever it reads.
start_time=$(date -d @"$((started - 600))" +%Y-%m-%dT%H:%M:%S)
expect_wait "a job past its limit fails" 1 SIGNALING
[[ $failures -eq 0 ]] || exit 1
echo "all wait_job checks passed"
