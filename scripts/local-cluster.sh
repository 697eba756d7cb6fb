#!/usr/bin/env bash
# A small Slurm cluster on this one machine: a head node running slurmctld and N compute nodes each
# running its own slurmd, every node a network + UTS namespace with its own hostname and one address
# on a bridge. The filesystem stays shared, as on a cluster; munge is one daemon whose unix socket
# every node reaches through that filesystem.
#   scripts/local-cluster.sh start  DIR [--nodes N] [--link-rate RATE]
#   scripts/local-cluster.sh status DIR
#   scripts/local-cluster.sh shell  DIR [-- COMMAND...]   (a shell, or COMMAND, on the head node)
#   scripts/local-cluster.sh stop   DIR
# Needs root (namespaces; slurmd starts jobs as their users) and Debian's slurm-wlm and munge.
# Every state, spool, log, pid, key and socket file is under DIR (docs/jobs.md).
#
# Network safety: the test addresses (10.77.0.0/24) exist only on interfaces inside the namespaces
# made here. The bridge and the head's address live in the head's namespace, the node ends of the
# links in the nodes' namespaces: the host's namespace gets no interface, address or route on the
# test network, and no namespace has a default route, so a packet to a test address cannot leave
# the bridge, and nothing on the bridge can reach anything else. Users therefore submit from the
# head node (`shell`), where sbatch, srun and squeue reach slurmctld.
set -euo pipefail
# shellcheck source=scripts/local-slurm-common.sh
source "$(dirname "$(realpath "$0")")/local-slurm-common.sh"

readonly SUBNET=10.77.0 # head .1, nodeK .(10+K)
readonly MAX_NODES=64
readonly START_TIMEOUT_S=60 # nodes idle; measured 3-6 s for 4 nodes on the 2-core dev machine
readonly STOP_WAIT_S=10     # each daemon and job process, from SIGTERM to SIGKILL

usage() {
  sed -n '6,9p' "$0" | sed 's/^# *//' >&2
  exit 2
}
log() { echo "local-cluster: $*" >&2; }
die() {
  log "$*"
  exit 3
}

# --- the cluster's names, all derived from DIR, so that stop works from a new shell -----------
# set_names DIR: sets dir (absolute), prefix (namespace names: PREFIX-head, PREFIX-nodeK).
set_names() {
  [[ -n $1 ]] || usage
  dir=$(realpath -m -- "$1")
  # The path goes into slurm.conf and munged's arguments unquoted; the socket path into sun_path.
  [[ $dir =~ ^[A-Za-z0-9._/+-]+$ ]] ||
    die "DIR '$1' may hold only letters, digits and . _ / + - (it is written into slurm.conf)"
  ((${#dir} <= 80)) || die "DIR '$dir' is longer than 80 characters (munge's socket path is limited)"
  prefix="mc$(printf '%s' "$dir" | sha256sum | cut -c1-8)"
}
head_ns() { echo "$prefix-head"; }
node_ns() { echo "$prefix-node$1"; }
node_addr() { echo "$SUBNET.$((10 + $1))"; }
# Namespaces of this DIR that exist now (whatever the state file says).
our_namespaces() { ip netns list 2>/dev/null | awk '{print $1}' | grep -E "^$prefix-(head|node[0-9]+)\$" || true; }

# State file: nodes=N and link_rate=RATE, read back as data (never sourced).
read_state() {
  nodes=0 link_rate=""
  [[ -f $dir/cluster.state ]] || return 1
  local line
  while IFS= read -r line; do
    case "$line" in
    nodes=*) [[ ${line#nodes=} =~ ^[0-9]{1,2}$ ]] && nodes=${line#nodes=} ;;
    link_rate=*) [[ ${line#link_rate=} =~ ^[0-9.]*[A-Za-z]*$ ]] && link_rate=${line#link_rate=} ;;
    esac
  done <"$dir/cluster.state"
  ((nodes >= 1 && nodes <= MAX_NODES))
}

# pid_of PIDFILE COMM: the pid in PIDFILE when that process is alive and is COMM (a pid file read
# back is input: a stale one naming another program's process must not get it killed).
pid_of() {
  local pid
  [[ -f $1 ]] || return 1
  pid=$(head -c 32 "$1" | tr -d '[:space:]')
  [[ $pid =~ ^[0-9]{1,9}$ ]] || return 1
  [[ $(cat "/proc/$pid/comm" 2>/dev/null) == "$2" ]] || return 1
  echo "$pid"
}

# on_node NAME NS COMMAND...: COMMAND in network namespace NS with hostname NAME and the cluster's
# hosts file, bind-mounted in a mount namespace of its own (mounts of the host still propagate in).
# Not `ip netns exec`: it remounts /sys, and slurmd 22.05 fails without /sys/fs/cgroup.
on_node() {
  local name=$1 ns=$2
  shift 2
  # shellcheck disable=SC2016 # the inner shell expands its own arguments
  nsenter --net="/run/netns/$ns" -- unshare --uts --mount --propagation slave -- /bin/sh -c \
    'hostname "$1" && mount --bind "$2" /etc/hosts && shift 2 && exec "$@"' \
    sh "$name" "$dir/etc/hosts" env SLURM_CONF="$dir/slurm.conf" MINIAPP_LOCAL_CLUSTER="$dir" "$@"
}
on_head() { on_node head "$(head_ns)" "$@"; }

# --- start --------------------------------------------------------------------------------------
check_tools() {
  local tool
  for tool in ip nsenter unshare runuser munged slurmctld slurmd sinfo scancel ${link_rate:+tc}; do
    command -v "$tool" >/dev/null || [[ -x /usr/sbin/$tool ]] ||
      die "'$tool' not found: install Debian's iproute2, util-linux, slurm-wlm and munge"
  done
  [[ $(id -u) -eq 0 ]] || die "must run as root (network namespaces; slurmd starts jobs as their users)"
  ip netns list >/dev/null 2>&1 || die "'ip netns' does not work here (no network namespaces)"
}

# make_network: the head's namespace holds the bridge (with the head's address on it); each node's
# namespace holds one end of a veth pair, the other end a port of the bridge. Links are created
# directly inside the namespaces: no interface of the cluster ever exists in the host's namespace.
make_network() {
  local h k ns
  h=$(head_ns)
  ip netns add "$h"
  ip -n "$h" link set lo up
  ip -n "$h" link add br0 type bridge
  ip -n "$h" addr add "$SUBNET.1/24" dev br0
  ip -n "$h" link set br0 up
  for ((k = 1; k <= nodes; k++)); do
    ns=$(node_ns "$k")
    ip netns add "$ns"
    ip -n "$ns" link set lo up
    ip -n "$ns" link add eth0 type veth peer name "node$k" netns "$h"
    ip -n "$h" link set "node$k" master br0
    ip -n "$h" link set "node$k" up
    ip -n "$ns" addr add "$(node_addr "$k")/24" dev eth0
    ip -n "$ns" link set eth0 up
    if [[ -n $link_rate ]]; then
      limit_rate "$ns" eth0 # from the node
      limit_rate "$h" "node$k" # to the node
    fi
  done
}

# limit_rate NS DEV: one HTB class holding every packet DEV sends to $link_rate (quantum set so that
# HTB does not warn at rates above 16 Mbit/s, where rate/r2q passes its 200000-byte limit).
limit_rate() {
  ip netns exec "$1" tc qdisc add dev "$2" root handle 1: htb default 10
  ip netns exec "$1" tc class add dev "$2" parent 1: classid 1:10 htb rate "$link_rate" \
    ceil "$link_rate" quantum 60000
}

write_config() {
  local k cpus
  cpus=$(nproc)
  {
    printf '127.0.0.1 localhost\n%s.1 head\n' "$SUBNET"
    for ((k = 1; k <= nodes; k++)); do printf '%s node%d\n' "$(node_addr "$k")" "$k"; done
  } >"$dir/etc/hosts"
  {
    echo "# Generated by scripts/local-cluster.sh: $nodes node(s) in $dir"
    echo "ClusterName=miniapp-cluster"
    slurm_conf_settings "$dir" "head($SUBNET.1)" 6817 6818 %n
    # Each node's own temporary directory, as on a cluster (/tmp is shared here): srun --mpi=pmix
    # makes TmpFS/spmix_appdir_JOB.STEP on every node of a step, and in one shared /tmp the
    # second node's fails ("File exists") and the step does not launch.
    echo "TmpFS=$dir/tmp/%n"
    for ((k = 1; k <= nodes; k++)); do
      echo "NodeName=node$k NodeHostname=node$k NodeAddr=$(node_addr "$k") CPUs=$cpus State=UNKNOWN"
    done
    # Partition `local`, as the one-node test Slurm's: jobscripts/systems/local.yaml and the
    # studies of docs/jobs.md run unchanged on `--nodes 1`.
    echo "PartitionName=local Nodes=node[1-$nodes] Default=YES MaxTime=30 State=UP"
  } >"$dir/slurm.conf"
}

# idle_count: how many nodes sinfo (asked on the head node) shows idle.
idle_count() { on_head sinfo -h -N -o '%T' 2>/dev/null | grep -c '^idle$' || true; }

# At the exit of a start that failed: the logs, then whatever it had started stopped.
undo_failed_start() {
  local rc=$?
  ((rc != 0)) || return 0
  log "start failed; stopping what it started"
  local_slurm_dump_logs "$dir"
  cmd_stop
}

cmd_start() {
  check_tools
  if [[ -n $(our_namespaces) ]] || pid_of "$dir/munge/munged.pid" munged >/dev/null; then
    die "a cluster of $dir runs already: '$0 stop $dir' first"
  fi
  mkdir -p "$dir"/{etc,state,spool,log,run}
  chmod 755 "$dir"
  printf 'nodes=%s\nlink_rate=%s\n' "$nodes" "$link_rate" >"$dir/cluster.state"
  trap undo_failed_start EXIT
  local_munge_start "$dir" || die "munged did not start"
  make_network
  write_config
  local k i
  on_head /usr/sbin/slurmctld -f "$dir/slurm.conf" || die "slurmctld did not start"
  for ((k = 1; k <= nodes; k++)); do
    mkdir -p "$dir/spool/node$k" "$dir/tmp/node$k"
    chmod 1777 "$dir/tmp/node$k" # as /tmp: every user's jobs write there
    on_node "node$k" "$(node_ns "$k")" /usr/sbin/slurmd -f "$dir/slurm.conf" -N "node$k" ||
      die "slurmd of node$k did not start"
  done
  for ((i = 0; i < START_TIMEOUT_S * 2; i++)); do
    if (($(idle_count) == nodes)); then
      trap - EXIT
      log "$nodes node(s) idle: node1 to node$nodes ($(node_addr 1) to $(node_addr "$nodes")," \
        "head $SUBNET.1)${link_rate:+, links limited to $link_rate}"
      log "submit from the head node: $0 shell $dir"
      return 0
    fi
    sleep 0.5
  done
  die "not all $nodes nodes became idle in $START_TIMEOUT_S s: $(on_head sinfo -N 2>&1 | tr '\n' ' ')"
}

# --- stop ---------------------------------------------------------------------------------------
# end_pids PID...: SIGTERM, then SIGKILL to those still alive after STOP_WAIT_S.
end_pids() {
  (($# > 0)) || return 0
  local i pid alive
  kill "$@" 2>/dev/null || true
  for ((i = 0; i < STOP_WAIT_S * 5; i++)); do
    alive=0
    for pid in "$@"; do kill -0 "$pid" 2>/dev/null && alive=1; done
    ((alive)) || return 0
    sleep 0.2
  done
  kill -9 "$@" 2>/dev/null || true
}

cmd_stop() {
  local ns pid pids=() f
  if pid_of "$dir/run/slurmctld.pid" slurmctld >/dev/null && [[ -n $(our_namespaces) ]]; then
    timeout 10 ip netns exec "$(head_ns)" env SLURM_CONF="$dir/slurm.conf" scancel --quiet \
      --user=root 2>/dev/null || true
  fi
  for f in "$dir"/run/slurmd-*.pid; do
    pid=$(pid_of "$f" slurmd) && pids+=("$pid")
  done
  end_pids "${pids[@]}"
  pid=$(pid_of "$dir/run/slurmctld.pid" slurmctld) && end_pids "$pid"
  # Whatever still lives in the namespaces (job steps, slurmstepd) was started by this cluster.
  for ns in $(our_namespaces); do
    mapfile -t pids < <(ip netns pids "$ns" 2>/dev/null)
    end_pids "${pids[@]}"
  done
  for ns in $(our_namespaces); do ip netns del "$ns" || log "could not remove namespace $ns"; done
  pid=$(pid_of "$dir/munge/munged.pid" munged) && end_pids "$pid"
  rm -f "$dir/cluster.state"
  if [[ -n $(our_namespaces) ]]; then die "namespaces left: $(our_namespaces | tr '\n' ' ')"; fi
  log "stopped (logs kept in $dir/log)"
}

# --- status -------------------------------------------------------------------------------------
cmd_status() {
  local k pid ok=1 ns
  if ! read_state; then
    if [[ -n $(our_namespaces) ]]; then
      echo "no state file, but namespaces of $dir exist: $(our_namespaces | tr '\n' ' ')"
      return 1
    fi
    echo "no cluster runs in $dir"
    return 1
  fi
  if pid=$(pid_of "$dir/munge/munged.pid" munged); then echo "munged: running (pid $pid)"; else
    echo "munged: not running"
    ok=0
  fi
  if pid=$(pid_of "$dir/run/slurmctld.pid" slurmctld); then
    echo "head ($SUBNET.1, namespace $(head_ns)): slurmctld running (pid $pid)"
  else
    echo "head: slurmctld not running"
    ok=0
  fi
  for ((k = 1; k <= nodes; k++)); do
    ns=$(node_ns "$k")
    if pid=$(pid_of "$dir/run/slurmd-node$k.pid" slurmd); then
      echo "node$k ($(node_addr "$k"), namespace $ns): slurmd running (pid $pid)${link_rate:+, link $link_rate}"
    else
      echo "node$k: slurmd not running"
      ok=0
    fi
  done
  if ((ok)); then on_head sinfo -N || ok=0; fi
  ((ok))
}

# --- shell --------------------------------------------------------------------------------------
cmd_shell() {
  if [[ -z $(our_namespaces) ]] || ! pid_of "$dir/run/slurmctld.pid" slurmctld >/dev/null; then
    die "no cluster runs in $dir: '$0 start $dir' first"
  fi
  if (($# == 0)); then
    log "on the head node of $dir (SLURM_CONF set); 'exit' to leave"
    set -- "${SHELL:-/bin/bash}"
  fi
  on_head "$@"
}

# --- arguments ----------------------------------------------------------------------------------
(($# >= 2)) || usage
command=$1 dir_arg=$2
shift 2
nodes=4 link_rate=""
case "$command" in
start)
  while (($# > 0)); do
    case "$1" in
    --nodes)
      if ! [[ ${2:-} =~ ^[0-9]{1,2}$ ]] || ((10#$2 < 1 || 10#$2 > MAX_NODES)); then
        log "--nodes takes a number of nodes from 1 to $MAX_NODES"
        exit 2
      fi
      nodes=$((10#$2))
      shift 2
      ;;
    --link-rate)
      [[ ${2:-} =~ ^[1-9][0-9]{0,5}(\.[0-9]{1,3})?([kKmMgG]?(bit|bps))$ ]] ||
        { log "--link-rate takes a tc rate such as 200mbit or 1gbit"; exit 2; }
      link_rate=$2
      shift 2
      ;;
    *) usage ;;
    esac
  done
  set_names "$dir_arg"
  cmd_start
  ;;
stop | status)
  (($# == 0)) || usage
  set_names "$dir_arg"
  "cmd_$command"
  ;;
shell)
  if (($# > 0)); then
    [[ $1 == -- ]] || usage
    shift
  fi
  set_names "$dir_arg"
  cmd_shell "$@"
  ;;
*) usage ;;
esac
