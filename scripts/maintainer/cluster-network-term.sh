#!/usr/bin/env bash
# SUMMA's network term measured (docs/mpi.md, "Across a network"): starts the local cluster
# (scripts/local-cluster.sh) with every node's link limited to RATE, measures one link with TCP
# (scripts/maintainer/link_probe.py: payload rate and latency, between node1 and node2) and as MPI
# carries it (scripts/maintainer/mpi_bcast_probe.c: a broadcast's alpha + bytes / beta), runs
# the weak-scaling products of tests/slurm/cluster_network_term.yaml on 1, 2 and 4 nodes, one
# rank of one thread per node, one job after the other (submitted from the head node as a user
# would: miniapp jobscript, sbatch --wait), and writes the measured and predicted time of each
# 2- and 4-node product (scripts/maintainer/cluster_network_table.py) to OUT/table.md, with the
# command, the machine's load (uptime) around each job and every job's results and log.
#   sudo scripts/maintainer/cluster-network-term.sh RATE [OUT]
# RATE: a tc rate (200mbit, 1gbit); OUT: default docs/data/cluster-network-term-<UTC date>/RATE.
# MINIAPP: the program (default build/openmp/bin/miniapp). About 3 minutes a rate.
set -euo pipefail
rate=${1:?usage: cluster-network-term.sh RATE [OUT]}
src=$(cd "$(dirname "$(realpath "$0")")/../.." && pwd)
miniapp=$(realpath "${MINIAPP:-$src/build/openmp/bin/miniapp}")
out=$(realpath -m "${2:-$src/docs/data/cluster-network-term-$(date -u +%F)/$rate}")
cluster=$src/scripts/local-cluster.sh
dir=/tmp/miniapp-network-term-$rate # the cluster's files; removed at the end
[[ ! -e $out/table.md ]] || { echo "$out/table.md exists: give another OUT" >&2; exit 2; }
mkdir -p "$out"
rm -rf "$dir"
stop() { timeout 60 "$cluster" stop "$dir" >/dev/null 2>&1 || true; rm -rf "$dir"; }
trap stop EXIT
echo "$0 $*  ($(date -u +%FT%TZ), $(git -C "$src" rev-parse --short HEAD))" \
  >"$out/command.txt"
"$cluster" start "$dir" --nodes 4 --link-rate "$rate"
on_head() { "$cluster" shell "$dir" -- "$@"; }

# One thread per rank: 4 ranks on this 2-core machine already share its cores two to one.
sed -e 's/^name: .*/name: local-cluster-1thread/' -e 's/^cores_per_node: .*/cores_per_node: 1/' \
  "$src/jobscripts/systems/local-cluster.yaml" >"$out/profile.yaml"
cp "$src/tests/slurm/cluster_network_term.yaml" "$out/config.yaml"

# The link, as TCP carries it: node1 -> node2 (each node's own namespace, its own address).
ns() { "$cluster" status "$dir" | sed -n "s/^$1 (.*namespace \([^)]*\)).*/\1/p"; }
bits=$(python3 -c 'import re, sys
m = re.fullmatch(r"([0-9.]+)([kmg]?)(bit|bps)", sys.argv[1].lower())
print(float(m[1]) * {"": 1, "k": 1e3, "m": 1e6, "g": 1e9}[m[2]] * (8 if m[3] == "bps" else 1))' "$rate")
ip netns exec "$(ns node2)" timeout 120 python3 "$src/scripts/maintainer/link_probe.py" server 10.77.0.12 5201 &
server=$!
ip netns exec "$(ns node1)" timeout 120 python3 "$src/scripts/maintainer/link_probe.py" client 10.77.0.12 5201 3 "$bits" \
  >"$out/link.json"
wait "$server"
echo "link: $(cat "$out/link.json")"
# The same link as MPI carries it: an MPI_Ibcast between node1 and node2, alpha + bytes / beta.
mpicc -O2 -o "$dir/mpi_bcast_probe" "$src/scripts/maintainer/mpi_bcast_probe.c"
on_head env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_pml=ob1 \
  OMPI_MCA_btl=self,tcp srun --mpi=pmix --nodes 2 --ntasks-per-node 1 --time 5 \
  "$dir/mpi_bcast_probe" >"$out/mpi_link.json"
echo "MPI: $(cat "$out/mpi_link.json")"

for nodes in 1 2 4; do
  case $nodes in 1) p=1 q=1 ;; 2) p=1 q=2 ;; 4) p=2 q=2 ;; esac
  sets=()
  for i in 0 1 2; do
    block=$((256 << i))
    sets+=("cases.$i.m=$((block * p))" "cases.$i.n=$((block * q))")
  done
  on_head "$miniapp" jobscript "$out/config.yaml" --system "$out/profile.yaml" --nodes "$nodes" \
    --ranks-per-node 1 --output-dir "$out/np$nodes" --set "${sets[@]}" -o "$dir/np$nodes.sh"
  echo "np$nodes before: $(uptime)" >>"$out/load.txt"
  on_head sbatch --wait --output="$out/np$nodes.log" "$dir/np$nodes.sh" ||
    echo "np$nodes: the job failed (log: $out/np$nodes.log)" >&2
  echo "np$nodes after:  $(uptime)" >>"$out/load.txt"
done
python3 "$src/scripts/maintainer/cluster_network_table.py" "$miniapp" "$out" | tee "$out/table.md"
