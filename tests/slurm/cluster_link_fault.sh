# shellcheck shell=bash
# shellcheck disable=SC2154 # scratch, here, miniapp, namespaces, deadline: set by local_cluster_test.sh
# Sourced by local_cluster_test.sh (check_link_down uses its cases_done, rank_pid and job_state):
# check_link_down: a node whose link goes down in the middle of SUMMA across two nodes. Nothing on the
# lost node dies, and Open MPI's TCP reports nothing for many minutes: without a bounded wait the
# rank left waited in its broadcast until the job's time limit. Now it ends the run after the
# stall limit (MINIAPP_MPI_STALL_TIMEOUT, 20 s) naming both ranks' nodes, and its MPI_Abort makes
# srun give the unreachable node's task 7 s; the job fails with exit 3 within 60 s of the fault
# (27 s measured), keeping the cases done, and the same script submitted again (after the link is
# back) completes them, each once.

# rank_namespace JOB RANK: the namespace of the node running that rank of the job.
rank_namespace() {
  local ns pid
  pid=$(rank_pid "$1" "$2")
  [[ -n $pid ]] || return 1
  for ns in "${namespaces[@]:1}"; do
    grep -qx "$pid" < <(ip netns pids "$ns") && echo "$ns" && return 0
  done
  return 1
}
# while_job_in JOB STATE...: waits while the job is in one of the states (bounded by the test's
# deadline; the callers' jobs have a 5-minute limit, which Slurm enforces).
while_job_in() {
  local job=$1
  shift
  while [[ " $* " == *" $(field "$job" JobState) "* ]] && (($(date +%s) < deadline)); do sleep 0.5; done
}

# check_resubmitted WHAT DIR SCRIPT: SCRIPT submitted again completes DIR's run, resuming it:
# every case exactly once, validated.
check_resubmitted() {
  local job state once resumed
  job=$(cd "$scratch" && on_head 30 sbatch --parsable "$3" 2>&1)
  wait_job "$job"
  state=$(job_state "$job")
  once=$(python3 -c 'import json, sys
d = json.load(open(sys.argv[1])); cases = [r["case"] for r in d["results"]]; done = d["complete"]
ok = done and len(cases) == len(set(cases)) == 3 and all(r["valid"] is True for r in d["results"])
print("3 cases once, valid" if ok else f"complete {done}, cases {cases}")' \
    "$2/results.json" 2>&1)
  resumed=$(grep -c "miniapp-job: resuming the run" "$scratch"/*-"$job".out 2>/dev/null)
  verify "the job submitted again $1 resumed to completion: $state, $once" \
    test "$state $once $resumed" == "JobState=COMPLETED ExitCode=0:0  3 cases once, valid 1"
}

check_link_down() {
  local job lost_ns lost kept downed took state log checked
  checked=$(date +%s)
  on_head 60 "$miniapp" jobscript "$here/cluster_fault.yaml" --system local-cluster --nodes 2 \
    --ranks-per-node 1 --output-dir "$scratch/linkdown" -o "$scratch/linkdown.sh" >/dev/null 2>&1
  job=$(cd "$scratch" && on_head 30 sbatch --parsable "$scratch/linkdown.sh" 2>&1)
  # Until the first case is kept: while the job is pending or running, not a count of polls.
  while (($(cases_done "$scratch/linkdown/results.json") < 1)) && (($(date +%s) < deadline)) &&
    [[ $(field "$job" JobState) == @(PENDING|CONFIGURING|RUNNING) ]]; do
    sleep 0.2
  done
  lost_ns=$(rank_namespace "$job" 1)
  kept=$(cases_done "$scratch/linkdown/results.json")
  if [[ -z $lost_ns ]] || ((kept < 1 || kept > 2)); then
    fail "no rank 1 of job '$job' to cut off between its first and last case ($kept of 3 done)"
  else
    lost=node${lost_ns##*-node}
    ip netns exec "$lost_ns" ip link set eth0 down
    downed=$(date +%s)
    while_job_in "$job" PENDING CONFIGURING RUNNING
    took=$(($(date +%s) - downed))
    ip netns exec "$lost_ns" ip link set eth0 up
    on_head 10 scancel "$job" # still running: a hang, failed below; the job submitted again needs nodes
    wait_job "$job"
    state=$(job_state "$job")
    log=$(cat "$scratch"/*-"$job".out 2>&1)
    kept=$(cases_done "$scratch/linkdown/results.json")
    echo "link of $lost (rank 1) down: the job left RUNNING $took s later"
    if [[ $state == "JobState=FAILED ExitCode=3:0 " ]] && ((took <= 60 && kept >= 1)) &&
      [[ $log =~ rank\ 0:\ .*no\ MPI\ progress\ for\ 20\ s\ on\ node[1-4]\ waiting\ for\ rank\ 1\ on\ $lost\  ]]; then
      pass "$lost's link down: $state $took s after the fault, rank 0 naming rank 1 on $lost, $kept case(s) kept"
    else
      fail "$lost's link down: $state $took s after the fault, $kept case(s) kept; log: $(tail -n 8 <<<"$log")"
    fi
    check_resubmitted "after the link loss" "$scratch/linkdown" "$scratch/linkdown.sh"
    echo "the link-down check took $(($(date +%s) - checked)) s"
  fi
}
