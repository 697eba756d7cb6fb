# shellcheck shell=bash
# shellcheck disable=SC2154 # started and deadline: set by the test that sources this file
# Waiting for Slurm jobs by their states, never by a guess of this machine's speed: a running job
# is waited for until its own time limit (from its StartTime and TimeLimit) and a minute more, the
# time Slurm takes to end it; a pending one behind the jobs before it, each so bounded. Shared by
# the one-node Slurm tests (slurm_test_lib.sh) and the cluster test (local_cluster_test.sh).
# Sourced after the test defines: slurm_cmd COMMAND... (runs a Slurm command: on this host, or on
# the cluster's head node), fail (check_lib.sh), `started` and `deadline` (epoch seconds: the
# test's start and its last deadline, inside ctest's TIMEOUT).
# field ID KEY: one field of `scontrol show job` (records live MinJobAge=3600 s).
field() { slurm_cmd scontrol show job -o "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"; }
# slurm_seconds TIME: seconds of a Slurm TimeLimit (MM:SS, HH:MM:SS, D-HH:MM:SS); UNLIMITED and
# anything else: the test's last deadline.
slurm_seconds() {
  local t=$1 days=0 parts
  [[ $t == *-* ]] && days=${t%%-*} t=${t#*-}
  IFS=: read -r -a parts <<<"$t"
  case ${#parts[@]} in
  2) echo $((days * 86400 + 10#${parts[0]} * 60 + 10#${parts[1]})) ;;
  3) echo $((days * 86400 + 10#${parts[0]} * 3600 + 10#${parts[1]} * 60 + 10#${parts[2]})) ;;
  *) echo $((deadline - started)) ;;
  esac
}
# Past its time limit Slurm ends a job within its check interval (30 s) and KillWait (5 s,
# local_slurm.sh), then runs the epilog: a minute in all.
slurm_end_slack=60
# wait_job ID: until the job is in a state it cannot leave (COMPLETED, FAILED, TIMEOUT, ...). A
# job that has started (RUNNING, COMPLETING, or a passing state such as SIGNALING while Slurm
# delivers the warning of `--signal`, STAGE_OUT, RESIZING, SUSPENDED) past its time limit with
# the slack is stuck (fails); a pending one waits for the jobs before it, each bounded by its own
# limit. (Waiting only while PENDING, RUNNING or COMPLETING, slurm_resume's wait ended 32 s into
# a one-minute job, just after its warning, on a loaded host, and the job then read RUNNING: a
# passing state had ended the wait. tests/slurm/job_wait_check.sh feeds it such states.)
wait_job() {
  local state start until
  while (($(date +%s) < deadline)); do
    state=$(field "$1" JobState)
    case "$state" in
    PENDING | CONFIGURING | "")
      # A limit above the partition's never starts: say so rather than wait for the deadline.
      if [[ $(field "$1" Reason) == PartitionTimeLimit ]]; then
        fail "job $1 pends forever: its time limit is above the partition's"
        return 1
      fi
      sleep 0.5
      ;;
    BOOT_FAIL | CANCELLED | COMPLETED | DEADLINE | FAILED | NODE_FAIL | OUT_OF_MEMORY | PREEMPTED | \
      REVOKED | SPECIAL_EXIT | TIMEOUT)
      return 0
      ;;
    *)
      start=$(date -d "$(field "$1" StartTime)" +%s)
      until=$((start + $(slurm_seconds "$(field "$1" TimeLimit)") + slurm_end_slack))
      if (($(date +%s) > until)); then
        fail "job $1 still $state $((until - start)) s after it started: past its time limit"
        return 1
      fi
      sleep 0.5
      ;;
    esac
  done
  fail "job $1 still ${state:-unknown} at the test's last deadline ($((deadline - started)) s after start)"
  return 1
}
