#!/usr/bin/env bash
# scripts/local-cluster.sh against this machine (ctest local_cluster, label cluster): a 4-node
# cluster of network namespaces comes up with every node idle, a 2-node job runs one task on each
# of two nodes (each in its own namespace, with its own hostname and address), the test network
# stays inside the namespaces (no interface, address or route of it in the host's namespace, no
# default route in any namespace), SUMMA submitted by `miniapp jobscript --system local-cluster`
# runs validated across two nodes over TCP, the same job whose tasks never launch fails with exit 3
# (srun exits 0 then), a rank SIGKILLed mid-run and a node whose link goes down mid-run each end
# their job with exit 3 within 60 s and the job submitted again completes it, a node whose slurmd
# stops under a study point (marked DOWN) has the point requeued, `study status` saying so and why,
# and the point completing on the nodes left, and `stop`, called as from a new shell, leaves no
# namespace, link, daemon or job process behind, even with a job still running.
#   local_cluster_test.sh MINIAPP
# Skips (exit 77) when not root or without `ip netns`; every wait is bounded; the cluster is
# stopped on any exit. KEEP_SCRATCH=1 keeps the scratch directory.
set -uo pipefail
miniapp=$(realpath -- "${1:?usage: local_cluster_test.sh MINIAPP}")
here=$(cd "$(dirname "$0")" && pwd)
cluster="$here/../../scripts/local-cluster.sh"
if [[ $(id -u) -ne 0 ]]; then
  echo "skipped: the local cluster needs root (network namespaces)"
  exit 77
fi
if ! ip netns list >/dev/null 2>&1; then
  echo "skipped: 'ip netns' does not work on this machine"
  exit 77
fi

started=$(date +%s)
CHECK_NAME=cluster
# shellcheck source=tests/slurm/check_lib.sh
source "$here/check_lib.sh"
chmod 755 "$scratch" # munged runs as user munge
dir=$scratch/cluster
# At any exit: the cluster stopped; the scratch directory removed unless something failed.
finish() {
  local rc=$?
  timeout 60 "$cluster" stop "$dir" >/dev/null 2>&1
  remove_scratch_unless_failed "$rc"
}
trap finish EXIT
trap 'exit 130' INT TERM
# on_head SECONDS COMMAND...: COMMAND on the head node, ended after SECONDS.
on_head() {
  local seconds=$1
  shift
  timeout "$seconds" "$cluster" shell "$dir" -- "$@"
}
host_links() { ip -o link show | awk -F': ' '{print $2}' | sort; }
# Jobs are waited for by their Slurm states, bounded by their own time limits (job_wait.sh), not
# by a count of polls: under a load of twice the cores the SUMMA job outlasted the 90 s of polls
# this test once gave it. The last deadline keeps a stuck test inside ctest's TIMEOUT (1200 s) with
# time left for the EXIT trap's stop.
deadline=$((started + 1080))
slurm_cmd() { on_head 30 "$@"; }
# shellcheck source=tests/slurm/job_wait.sh
source "$here/job_wait.sh"
# shellcheck source=tests/slurm/cluster_link_fault.sh
source "$here/cluster_link_fault.sh"
# shellcheck source=tests/slurm/cluster_slurmd_stop.sh
source "$here/cluster_slurmd_stop.sh"

links_before=$(host_links)
if ! timeout 90 "$cluster" start "$dir" --nodes 4 --link-rate 500mbit; then
  echo "FAIL: the 4-node cluster did not start (reasons above)" >&2
  exit 1
fi
echo "cluster up in $(($(date +%s) - started)) s"
again=$(timeout 60 "$cluster" start "$dir" --nodes 4 2>&1)
verify "a second start of a running cluster is refused: $again" \
  test $? -eq 3 -a -z "${again##*runs already*}"

# The namespaces and daemons this cluster runs, as status names them.
status=$(timeout 30 "$cluster" status "$dir") || fail "status of a running cluster failed: $status"
mapfile -t namespaces < <(sed -n 's/.*namespace \([^)]*\)).*/\1/p' <<<"$status")
mapfile -t daemons < <(sed -n 's/.*running (pid \([0-9]*\)).*/\1/p' <<<"$status")
[[ ${#namespaces[@]} -eq 5 ]] || fail "status names ${#namespaces[@]} namespaces, not head + 4 nodes"
[[ ${#daemons[@]} -eq 6 ]] || fail "status names ${#daemons[@]} daemons, not munged, slurmctld, 4 slurmd"

idle=$(on_head 30 sinfo -h -N -o '%N %T' | sort | tr '\n' ' ')
verify "sinfo shows node1-node4 idle: $idle" test "$idle" == "node1 idle node2 idle node3 idle node4 idle "

# A 2-node job: each task says its host and its address, which must be that node's own.
# shellcheck disable=SC2016 # expanded by the job's shell on each node
out=$(cd "$scratch" && on_head 60 sbatch --wait --nodes 2 --output="$scratch/job2.out" --wrap \
  'srun sh -c '\''echo "$(hostname) $(ip -4 -o addr show dev eth0 | awk "{print \$4}")"'\''' 2>&1) ||
  fail "the 2-node job failed: $out"
tasks=$(sort "$scratch/job2.out" 2>/dev/null | tr '\n' ' ')
if [[ $tasks =~ ^node([1-4])\ 10\.77\.0\.1([1-4])/24\ node([1-4])\ 10\.77\.0\.1([1-4])/24\ $ ]] &&
  [[ ${BASH_REMATCH[1]} == "${BASH_REMATCH[2]}" && ${BASH_REMATCH[3]} == "${BASH_REMATCH[4]}" ]] &&
  [[ ${BASH_REMATCH[1]} != "${BASH_REMATCH[3]}" ]]; then
  pass "a 2-node job ran on two nodes, each with its own address: $tasks"
else
  fail "the 2-node job printed '$tasks', not two different nodes at their own addresses"
fi

# SUMMA across two nodes, submitted as a user would (miniapp jobscript --submit, profile
# local-cluster): validated, results naming both nodes, Open MPI held to TCP, and the panels seen
# on the nodes' links: each of the 4 products (1 warm-up, 3 timed) broadcasts A's four 256 x 64
# float32 panels between the two ranks, 256 KiB, so at least 1 MiB crosses the links.
link_bytes() { # the bytes every node's eth0 has sent
  local ns total=0
  for ns in "${namespaces[@]:1}"; do
    total=$((total + $(ip netns exec "$ns" cat /sys/class/net/eth0/statistics/tx_bytes)))
  done
  echo "$total"
}
# job_state JOB: its state and exit code (jobs are waited for with wait_job, job_wait.sh).
job_state() { on_head 10 scontrol show job "$1" | grep -o 'JobState=[A-Z]*\|ExitCode=[0-9:]*' | tr '\n' ' '; }
bytes_before=$(link_bytes)
submitted=$(cd "$scratch" && on_head 60 "$miniapp" jobscript "$here/cluster_summa.yaml" \
  --system local-cluster --nodes 2 --ranks-per-node 1 --output-dir "$scratch/summa" \
  -o "$scratch/summa.sh" --submit 2>&1)
job=$(sed -n 's/.*submitted job \([0-9]*\).*/\1/p' <<<"$submitted")
if [[ -z $job ]]; then
  fail "the SUMMA job was not submitted: $submitted"
else
  wait_job "$job"
  state=$(job_state "$job")
  verify "SUMMA job $job across 2 nodes: $state" test "$state" == "JobState=COMPLETED ExitCode=0:0 "
  summary=$(python3 - "$scratch/summa/results.json" <<'PY'
import json, re, sys
doc = json.load(open(sys.argv[1]))
md, rows = doc["metadata"], doc["results"]
hosts = md.get("mpi_hosts", [])
problems = []
if not doc.get("complete"): problems.append("incomplete")
if not rows or any(r.get("valid") is not True for r in rows): problems.append("rows not all valid")
if md.get("mpi_ranks") != 2: problems.append(f"mpi_ranks {md.get('mpi_ranks')}")
if len(hosts) != 2 or len(set(hosts)) != 2 or not all(re.fullmatch(r"node[1-4]", h) for h in hosts):
    problems.append(f"mpi_hosts {hosts}")
if md.get("environment", {}).get("OMPI_MCA_btl") != "self,tcp": problems.append("OMPI_MCA_btl not self,tcp")
if md.get("summa_transport") != "host": problems.append(f"summa_transport {md.get('summa_transport')}")
print("; ".join(problems) if problems else f"{len(rows)} row(s) valid on {' and '.join(hosts)}, btl self,tcp")
sys.exit(1 if problems else 0)
PY
  ) || fail "SUMMA results: $summary (log: $(tail -n 20 "$scratch"/*-"$job".out 2>&1))"
  [[ $summary == *valid\ on* ]] && pass "SUMMA results: $summary"
  sent=$(($(link_bytes) - bytes_before))
  verify "the nodes' links carried the panels: $sent bytes sent (at least 1048576)" \
    test "$sent" -ge 1048576
fi

# A step whose tasks never start: Slurm 22.05's srun then exits 0 ("task 0 launch failed"), and
# the job script said "done (exit 0)", COMPLETED, without results. The launch fails as it once did
# by accident: the step's PMIx directory (TmpFS/spmix_appdir_<uid>_<job>.0) exists on every node.
job=$(cd "$scratch" && on_head 30 sbatch --parsable --hold "$scratch/summa.sh" 2>&1)
if [[ $job =~ ^[0-9]+$ ]]; then
  for node in "$dir"/tmp/node*; do mkdir -p "$node/spmix_appdir_$(id -u)_$job.0"; done
  on_head 10 scontrol release "$job"
  wait_job "$job"
  state=$(job_state "$job")
  log=$(cat "$scratch"/*-"$job".out 2>&1)
  if [[ $state == "JobState=FAILED ExitCode=3:0 " && $log == *"launch failed"* &&
    $log == *"never said how the run ended"* && $log != *"done (exit 0)"* ]]; then
    pass "a job whose tasks never launched failed with exit 3: $state"
  else
    fail "a job whose tasks never launched: $state; log: $(tail -n 8 <<<"$log")"
  fi
else
  fail "could not submit the job whose launch fails: $job"
fi

# A rank SIGKILLed on its node mid-run: srun --kill-on-bad-exit ends the other rank, which waited
# for it in a collective until the job's time limit (300 s, measured before the option), so the job
# fails with exit 3 within 60 s of the kill, naming the node and task; it keeps the cases done, and
# the same script submitted again resumes them: every case exactly once, validated.
cases_done() { # the cases a results.json holds (0 while it is absent or being replaced)
  python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["cases_completed"])' "$1" \
    2>/dev/null || echo 0
}
# rank_pid JOB RANK: the pid of that rank's miniapp, in whichever node's namespace. Read with bash
# builtins only: a lookup that started `cat`, `tr` and `grep` for every process of every node can take
# longer than the fault job's 17 s of cases under a load of 10 on 2 CPUs: once the job had ended when
# its rank was looked for ("no rank 1 ... (3 of 3 done)"). (No `| grep -q` under pipefail either:
# tests/structure/pipefail_grep.py.)
rank_pid() {
  local ns pid comm
  local -a env
  for ns in "${namespaces[@]:1}"; do
    for pid in $(ip netns pids "$ns"); do
      read -r comm <"/proc/$pid/comm" 2>/dev/null || continue
      [[ $comm == miniapp ]] || continue
      mapfile -d '' env <"/proc/$pid/environ" 2>/dev/null || continue
      [[ " ${env[*]} " == *" SLURM_JOB_ID=$1 "* && " ${env[*]} " == *" SLURM_PROCID=$2 "* ]] &&
        echo "$pid" && return
    done
  done
}
on_head 60 "$miniapp" jobscript "$here/cluster_fault.yaml" --system local-cluster --nodes 2 \
  --ranks-per-node 1 --output-dir "$scratch/fault" -o "$scratch/fault.sh" >/dev/null 2>&1
job=$(cd "$scratch" && on_head 30 sbatch --parsable "$scratch/fault.sh" 2>&1)
for ((i = 0; i < 600 && $(cases_done "$scratch/fault/results.json") < 1; i++)); do sleep 0.2; done
victim=$(rank_pid "$job" 1)
kept=$(cases_done "$scratch/fault/results.json")
if [[ -z $victim ]] || ((kept < 1 || kept > 2)); then
  fail "no rank 1 of job '$job' to kill between its first and last case ($kept of 3 done)"
else
  kill -9 "$victim"
  killed=$(date +%s)
  wait_job "$job"
  took=$(($(date +%s) - killed))
  on_head 10 scancel "$job" # still running: a hang, failed below; the resubmitted job needs the nodes
  state=$(job_state "$job")
  log=$(cat "$scratch"/*-"$job".out 2>&1)
  kept=$(cases_done "$scratch/fault/results.json")
  # Which ends the step first is a race: srun, ending rank 0 (its status then a signal's, 137 or,
  # once in CI, 143 from the TERM it sent rank 0: the job script says "a rank was ended by a
  # signal"), or rank 0, whose send to the dead rank failed first, ending the run with exit 3 and
  # its own message (seen on a quiet 2-core guest: "rank 0: ... MPI_Ibcast failed (resource:
  # network)"). Either way srun's line names the killed rank's node and task.
  if [[ $state == "JobState=FAILED ExitCode=3:0 " ]] && ((took <= 60 && kept >= 1)) &&
    [[ $log =~ node[1-4]:\ task\ 1:\ Killed ]] &&
    [[ $log == *"a rank was ended by a signal"* || $log == *"miniapp: rank 0: "*"(resource: network)"* ]]; then
    pass "rank 1 killed: $state $took s after the kill, the log naming its node and task, $kept case(s) kept"
  else
    fail "rank 1 killed: $state $took s after the kill, $kept case(s) kept; log: $(grep -E 'srun|miniapp' <<<"$log" | tail -n 12)"
  fi
  check_resubmitted "after the kill" "$scratch/fault" "$scratch/fault.sh"
fi

# Network safety: nothing of the test network in the host's namespace, no default route anywhere.
verify "no link of the cluster in the host's namespace" test "$(host_links)" == "$links_before"
if grep -q ' 10\.77\.0\.' < <(ip -o addr show); then fail "the host has an address on the test network"; fi
host_route=$(ip route get 10.77.0.11 2>&1)
route_dev=$(sed -n 's/.* dev \([^ ]*\).*/\1/p' <<<"$host_route" | head -n 1)
if [[ -z $route_dev ]] || grep -qx "$route_dev" <<<"$links_before"; then
  pass "the host reaches no test address through the cluster (${host_route%%$'\n'*})"
else
  fail "the host routes a test address through '$route_dev': $host_route"
fi
gateway=$(ip route show default | awk '{print $3; exit}')
for ns in "${namespaces[@]}"; do
  [[ -z $(ip -n "$ns" route show default) ]] || fail "namespace $ns has a default route"
  [[ $(ip -n "$ns" route show | awk '{print $1}' | sort -u) == 10.77.0.0/24 ]] ||
    fail "namespace $ns routes more than the test network: $(ip -n "$ns" route show | tr '\n' ' ')"
  if [[ -n $gateway ]] && ip -n "$ns" route get "$gateway" >/dev/null 2>&1; then
    fail "namespace $ns has a route to the host's gateway $gateway"
  fi
done
pass "no default route in the ${#namespaces[@]} namespaces; the host's gateway unreachable from them"

# The link rate: one HTB class at 500 Mbit/s on each node's end and on its bridge port.
rates=$(ip netns exec "${namespaces[1]}" tc class show dev eth0)
verify "node link limited by HTB to 500 Mbit/s: $rates" test -z "${rates##*htb 1:10*rate 500Mbit*}"
rates=$(ip netns exec "${namespaces[0]}" tc class show dev node1)
[[ $rates == *"rate 500Mbit"* ]] || fail "node1's bridge port has no 500 Mbit/s HTB class: $rates"

# A weak study over 1, 2 and 4 nodes: submitted, followed and collected (cluster_study_checks.sh).
# shellcheck source=tests/slurm/cluster_study_checks.sh
source "$here/cluster_study_checks.sh"

# A node's link down mid-run (cluster_link_fault.sh): the job ends within 60 s, then resumes.
check_link_down
# A node's slurmd stopped under a study point (cluster_slurmd_stop.sh): status says why, it resumes.
check_slurmd_stop

# Stop with a job still running on two nodes: every process in the namespaces must end too.
running=$(on_head 30 sbatch --parsable --nodes 2 --output=/dev/null --wrap 'srun sleep 300') ||
  fail "could not submit the job left running"
# Until it runs (its steps' processes are what stop must end): its state, not a count of polls.
while [[ -n $running && $(field "$running" JobState) == @(PENDING|CONFIGURING|) ]] &&
  (($(date +%s) < deadline)); do
  sleep 0.5
done
mapfile -t processes < <(for ns in "${namespaces[@]}"; do ip netns pids "$ns"; done)
((${#processes[@]} > ${#daemons[@]} - 1)) || fail "only ${#processes[@]} processes in the namespaces"
stop_start=$(date +%s)
env -i PATH="$PATH" timeout 60 "$cluster" stop "$dir" || fail "stop failed"
echo "stopped in $(($(date +%s) - stop_start)) s"
left=$(ip netns list | awk '{print $1}' | grep -Fx -f <(printf '%s\n' "${namespaces[@]}"))
verify "no namespace left: $left" test -z "$left"
[[ $(host_links) == "$links_before" ]] || fail "links left in the host's namespace"
alive=()
for pid in "${daemons[@]}" "${processes[@]}"; do kill -0 "$pid" 2>/dev/null && alive+=("$pid"); done
verify "no daemon or job process left (${#processes[@]} ended)" test ${#alive[@]} -eq 0
((${#alive[@]} == 0)) || ps -o pid=,args= -p "${alive[*]}" >&2
if timeout 30 "$cluster" status "$dir" >/dev/null; then fail "status says a stopped cluster runs"; fi

echo "$failures failure(s) in $(($(date +%s) - started)) s"
((failures == 0))
