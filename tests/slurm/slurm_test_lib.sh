# shellcheck shell=bash
# Shared by the tests against a real one-node Slurm (slurm_jobs_test.sh, slurm_resume_test.sh,
# study_slurm_test.sh):
# a scratch directory, pass/fail counting, the daemons of local_slurm.sh started (a machine that
# cannot start them FAILS the test, it never passes silently) and stopped at exit on success and
# failure, and waiting for jobs by their Slurm states. A running job is waited for until its own
# time limit (from its StartTime and TimeLimit) and a minute more, the time Slurm takes to end it:
# no wait depends on how fast this machine is (a machine 3x slower, under a load of twice its
# cores, ends a job later, and still inside its limit). One last deadline, inside ctest's TIMEOUT,
# only keeps a stuck test from being killed before the EXIT trap stops the daemons. Sourced with
# the test's name and that deadline in seconds:
#   source slurm_test_lib.sh NAME SECONDS     (as root; KEEP_SCRATCH=1 keeps the scratch directory)
# shellcheck source=tests/slurm/local_slurm.sh
source "$(dirname "${BASH_SOURCE[0]}")/local_slurm.sh"

CHECK_NAME=$1
# shellcheck source=tests/slurm/check_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/check_lib.sh"
chmod 755 "$scratch" # munged runs as user munge
# The jobs' runs record their time in the scratch directory's cache, not the user's (estimates then
# start from the built-in model: run/calibration_store.hpp).
export MINIAPP_CACHE_DIR="$scratch/cache"
slurm_test_finish() {
  local rc=$?
  local_slurm_stop
  remove_scratch_unless_failed "$rc"
}
trap slurm_test_finish EXIT
trap 'exit 130' INT TERM

started=$(date +%s)
deadline=$((started + $2))
if ! local_slurm_start "$scratch/slurm"; then
  echo "FAIL: this machine could not start a one-node Slurm (reasons above); the Slurm tests" \
    "need root and Debian's slurm-wlm and munge packages" >&2
  exit 1
fi
echo "Slurm up in $(($(date +%s) - started)) s"

# field, slurm_seconds, wait_job: scontrol on this host (job_wait.sh).
slurm_cmd() { "$@"; }
# shellcheck source=tests/slurm/job_wait.sh
source "$(dirname "${BASH_SOURCE[0]}")/job_wait.sh"
# check_job ID STATE [EXITCODE]: the job ended in STATE (with ExitCode code:signal).
check_job() {
  local state code
  state=$(field "$1" JobState)
  code=$(field "$1" ExitCode)
  if [[ $state == "$2" && ($# -lt 3 || $code == "$3") ]]; then
    pass "job $1: JobState=$state ExitCode=$code"
  else
    fail "job $1: JobState=$state ExitCode=$code, want $2 ${3:-}; log:"
    cat "$scratch"/*-"$1".out >&2 || true
  fi
}
# slurm_test_done WHAT: the summary line and the exit status.
slurm_test_done() {
  echo "$1 took $(($(date +%s) - started)) s"
  if [[ $failures -ne 0 ]]; then
    echo "$failures $1 check(s) FAILED" >&2
    exit 1
  fi
  echo "all $1 checks passed"
}
