# shellcheck shell=bash
# Shared by the tests against the real local Slurm (slurm_jobs_test.sh, slurm_resume_test.sh):
# a scratch directory (kept and named on failure), pass/fail counting, the cluster started
# (local_slurm.sh) and stopped at exit, and the job's state from `scontrol show job`.
# Sourced after `set -euo pipefail`; the caller sets SLURM_TEST_SECONDS (its waiting budget, inside
# ctest's TIMEOUT) and calls slurm_test_start.
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=tests/slurm/local_slurm.sh
source "$here/local_slurm.sh"

scratch=$(mktemp -d "${TMPDIR:-/tmp}/miniapp-slurm.XXXXXX")
chmod 755 "$scratch" # munged runs as user munge
failures=0
finish() {
  local rc=$?
  local_slurm_stop
  if [[ $rc -eq 0 && $failures -eq 0 && -z ${KEEP_SCRATCH:-} ]]; then
    rm -rf "$scratch"
  else
    echo "scratch directory kept: $scratch" >&2
  fi
}
trap finish EXIT
trap 'exit 130' INT TERM
fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}
pass() { echo "ok: $*"; }
# verify WHAT COMMAND...: passes when COMMAND succeeds.
verify() {
  local what=$1
  shift
  if "$@"; then pass "$what"; else fail "$what"; fi
}

# Starts the cluster in the scratch directory; a machine that cannot start it FAILS the test.
slurm_test_start() {
  started=$(date +%s)
  deadline=$((started + ${SLURM_TEST_SECONDS:-200}))
  if ! local_slurm_start "$scratch/slurm"; then
    echo "FAIL: this machine could not start a one-node Slurm (reasons above); the Slurm job tests" \
      "need root and Debian's slurm-wlm and munge packages" >&2
    exit 1
  fi
  echo "Slurm up in $(($(date +%s) - started)) s"
}

# field ID KEY: one field of `scontrol show job` (records live MinJobAge=3600 s).
field() { scontrol show job -o "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"; }
# wait_job ID: until the job has left PENDING/RUNNING/COMPLETING. All waiting ends at $deadline,
# inside ctest's TIMEOUT, so that the EXIT trap always gets to stop the daemons.
wait_job() {
  local state
  while (($(date +%s) < deadline)); do
    state=$(field "$1" JobState)
    case "$state" in
    PENDING | RUNNING | COMPLETING | CONFIGURING | "") sleep 0.5 ;;
    *) return 0 ;;
    esac
  done
  fail "job $1 still ${state:-unknown} at the test's deadline ($((deadline - started)) s after start)"
  return 1
}
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
