# shellcheck shell=bash
# shellcheck disable=SC2154 # scratch, here, miniapp, dir, deadline: set by local_cluster_test.sh
# Sourced by local_cluster_test.sh (check_slurmd_stop uses its on_head, cases_done, rank_pid, field,
# and rank_namespace and while_job_in of cluster_link_fault.sh):
# check_slurmd_stop: the slurmd of a node running a study point stops. Slurm would mark the node
# DOWN only after SlurmdTimeout (60 s here), so the check marks it DOWN at once, as an
# admin would (`scontrol update state=down`); Slurm then ends the job on its other node and
# requeues it (Restarts=1), holding it back for CredExpire (120 s: Reason BeginTime). `study
# status` must name the point, its job and why (BeginTime, requeued 1x), and the node out of
# service with the reason given (`down`, or `down*` once slurmctld found its slurmd not
# responding); the job, let go at once (StartTime=now rather than in 120 s), runs again on two of
# the nodes left, resuming the point's run to completion, each case once, and the collect job
# collects it. The node stays down: `stop` ends what is left on it.

check_slurmd_stop() {
  local checked study submitted job collect lost_ns k pid status line once
  checked=$(date +%s)
  mkdir -p "$scratch/slurmdstop"
  cp "$here/cluster_slurmd_stop.yaml" "$here/cluster_fault.yaml" "$scratch/slurmdstop/"
  study=$scratch/slurmdstop/cluster_slurmd_stop.yaml
  submitted=$(cd "$scratch/slurmdstop" && on_head 60 "$miniapp" study submit "$study" 2>&1)
  job=$(sed -n 's/^  \[1\] local-cluster: .*: job \([0-9]*\), .*/\1/p' <<<"$submitted")
  collect=$(sed -n 's/^  collect: job \([0-9]*\) after 1 job(s).*/\1/p' <<<"$submitted")
  if [[ -z $job || -z $collect ]]; then
    fail "the slurmd-stop study was not submitted: $submitted"
    return
  fi
  local results=$scratch/slurmdstop/slurmd_stop/results/point-1/results.json
  # Until the first case is kept: while the job is pending or running, not a count of polls.
  while (($(cases_done "$results") < 1)) && (($(date +%s) < deadline)) &&
    [[ $(field "$job" JobState) == @(PENDING|CONFIGURING|RUNNING) ]]; do
    sleep 0.2
  done
  lost_ns=$(rank_namespace "$job" 1)
  k=${lost_ns##*-node}
  pid=$(head -c 16 "$dir/run/slurmd-node$k.pid" 2>/dev/null)
  if [[ -z $lost_ns || $(cat "/proc/$pid/comm" 2>/dev/null) != slurmd ]] ||
    (($(cases_done "$results") > 2)); then
    fail "no slurmd under rank 1 of job '$job' to stop between its first and last case"
    return
  fi
  kill "$pid"
  on_head 10 scontrol update nodename="node$k" state=down reason="slurmd stopped by the test"
  # Its rank 1 lives on (no slurmd kills it), spinning in its MPI wait until the stall limit (20 s):
  # on a cluster on that node's own cores, here on one of the 2 the job's second run needs.
  pid=$(rank_pid "$job" 1)
  [[ -n $pid ]] && kill -9 "$pid"
  # Slurm requeues the job within a second of the DOWN; it is COMPLETING until its other node ended
  # it (KillWait, 5 s), then PENDING for 120 s: status is asked then.
  while_job_in "$job" RUNNING COMPLETING REQUEUED CONFIGURING
  status=$(on_head 30 "$miniapp" study status "$study" 2>&1)
  line=$(grep '^  \[1\] ' <<<"$status")
  local requeued="^  \[1\] local-cluster: 2 node\(s\) x 1 rank\(s\) per node: pending \(job $job: BeginTime, requeued 1x\), results incomplete, [12] of 3 case"
  echo "study status after node$k's slurmd stopped: $line"
  if [[ $line =~ $requeued ]] &&
    grep -qx "  out of service: node$k (down\*\?: slurmd stopped by the test)" <<<"$status"; then
    pass "study status names the requeued point, why, and node$k out of service"
  else
    fail "study status after node$k's slurmd stopped: $status"
  fi
  on_head 10 scontrol update jobid="$job" starttime=now
  wait_job "$job"
  wait_job "$collect"
  status=$(on_head 30 "$miniapp" study status "$study" 2>&1)
  once=$(python3 -c 'import json, sys
d = json.load(open(sys.argv[1])); cases = [r["case"] for r in d["results"]]; done = d["complete"]
ok = done and len(cases) == len(set(cases)) == 3 and all(r["valid"] is True for r in d["results"])
print("3 cases once, valid" if ok else f"complete {done}, cases {cases}")' "$results" 2>&1)
  if [[ $once == "3 cases once, valid" ]] &&
    grep -q "^  \[1\] .*: done (job $job: requeued 1x), results complete, 3 of 3 case(s)" <<<"$status" &&
    grep -q "^  collect: done (job $collect)" <<<"$status"; then
    pass "the requeued point completed on the nodes left: $once, collected"
  else
    fail "the requeued point: $once; status: $status"
  fi
  echo "the slurmd-stop check took $(($(date +%s) - checked)) s"
}
