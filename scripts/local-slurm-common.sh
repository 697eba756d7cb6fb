# shellcheck shell=bash
# What this machine's Slurm clusters share, written once: the one-node Slurm on localhost of the
# tests (tests/slurm/local_slurm.sh) and the cluster of network-namespace nodes
# (scripts/local-cluster.sh). Each keeps every file under its directory DIR.

# local_munge_start DIR: munged with its own fresh key, socket, pid, seed and log files under DIR
# (/etc/munge is not used), run as user munge as the package does; non-zero with the reason on
# stderr when it cannot start.
local_munge_start() {
  local d=$1
  mkdir -p "$d"/{munge,munge-key,log}
  chown munge:munge "$d/munge" "$d/munge-key"
  chmod 755 "$d/munge" # the socket: every client must reach it
  chmod 700 "$d/munge-key"
  dd if=/dev/urandom of="$d/munge-key/munge.key" bs=1024 count=1 status=none
  chown munge:munge "$d/munge-key/munge.key"
  chmod 400 "$d/munge-key/munge.key"
  if ! runuser -u munge -- test -x "$d/munge"; then
    echo "user munge cannot reach $d (a parent directory is not world-searchable)" >&2
    return 1
  fi
  touch "$d/log/munged.log"
  chown munge:munge "$d/log/munged.log"
  if ! runuser -u munge -- /usr/sbin/munged --key-file="$d/munge-key/munge.key" \
    --socket="$d/munge/munge.socket" --pid-file="$d/munge/munged.pid" \
    --seed-file="$d/munge-key/munged.seed" --log-file="$d/log/munged.log"; then
    echo "munged did not start" >&2
    return 1
  fi
}

# local_slurm_dump_logs DIR: the last lines of every daemon log, to say why something did not start.
local_slurm_dump_logs() {
  local f
  for f in "$1"/log/*.log; do
    [[ -s $f ]] || continue
    echo "----- $f (last 25 lines)" >&2
    tail -n 25 "$f" >&2
  done
}

# The slurm.conf settings, for Debian's slurm-wlm 22.05 as root: SlurmUser=root (slurmd starts jobs
# as their users), proctrack/linuxproc and task/none with no cgroup.conf (22.05 rejects
# CgroupPlugin=disabled), munge through its own socket, every file under DIR, no accounting
# database (job records stay in `scontrol show job` for an hour: MinJobAge=3600).
# slurm_conf_settings DIR CTLD_HOST CTLD_PORT SLURMD_PORT [SLURMD_TAG]: prints them (without nodes
# and partition); SLURMD_TAG (e.g. %n, the node's name) keeps several slurmd's spool, pid and log
# files apart.
slurm_conf_settings() {
  local d=$1 tag=${5:-}
  cat <<EOF
SlurmctldHost=$2
SlurmctldPort=$3
SlurmdPort=$4
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$d/munge/munge.socket
MpiDefault=none
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
ReturnToService=2
StateSaveLocation=$d/state
SlurmdSpoolDir=$d/spool${tag:+/$tag}
SlurmctldPidFile=$d/run/slurmctld.pid
SlurmdPidFile=$d/run/slurmd${tag:+-$tag}.pid
SlurmctldLogFile=$d/log/slurmctld.log
SlurmdLogFile=$d/log/slurmd${tag:+-$tag}.log
SlurmctldDebug=info
SlurmdDebug=info
JobCompType=jobcomp/filetxt
JobCompLoc=$d/log/jobcomp.txt
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
MinJobAge=3600
KillWait=5
InactiveLimit=0
SlurmdTimeout=60
EOF
}
