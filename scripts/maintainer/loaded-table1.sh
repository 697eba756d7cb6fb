#!/usr/bin/env bash
# configs/paper_table1.yaml run RUNS times (default 5) with a CPU load of twice the host's CPUs
# beside it (busy shell loops), then each row checked against a quiet run of the same config on
# the same host: its % of ceiling within 15 points of the quiet run's, or the row marked (busy,
# disturbed, uncertain ceiling). Then one `miniapp report` over the loaded runs and a GPU run,
# screenshotted in headless Chromium, so that the marks can be looked at where users read them.
#
#   scripts/maintainer/loaded-table1.sh QUIET_RUN GPU_RUN OUT [RUNS]
#
# QUIET_RUN: a run directory of paper_table1 made on this host while it was quiet. GPU_RUN: e.g.
# docs/data/paper_table1-cuda. OUT receives loaded-1 ... loaded-RUNS, check.txt (the row check),
# report/ and report.png. MINIAPP names the binary (default build/openmp/bin/miniapp). CHECK_ONLY=1
# checks and reports runs already in OUT (e.g. against a quiet run made afterwards).
# Exit 1 when a row is off by more than 15 points and unmarked.
set -euo pipefail
[[ $# -ge 3 && $# -le 4 ]] || {
  echo "usage: scripts/maintainer/loaded-table1.sh QUIET_RUN GPU_RUN OUT [RUNS]" >&2
  exit 2
}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
miniapp=${MINIAPP:-$here/build/openmp/bin/miniapp}
quiet=$1 gpu=$2 out=$3 runs=${4:-5}
mkdir -p "$out"

load_pids=()
stop_load() { if ((${#load_pids[@]})); then kill "${load_pids[@]}" 2>/dev/null || true; fi; }
trap stop_load EXIT
loaded_runs() {
  for _ in $(seq $((2 * $(nproc)))); do
    bash -c 'while :; do :; done' &
    load_pids+=($!)
  done
  sleep 20 # the 1-minute load average climbs towards the new load
  for i in $(seq "$runs"); do
    echo "run $i of $runs, load $(cut -d' ' -f1-3 /proc/loadavg)"
    "$miniapp" run "$here/configs/paper_table1.yaml" --output-dir "$out/loaded-$i" \
      >"$out/loaded-$i.console.txt" 2>&1 || echo "run $i exited $?"
  done
  stop_load
  load_pids=()
}
[[ ${CHECK_ONLY:-0} == 1 ]] || loaded_runs

status=0
python3 - "$quiet" "$out" "$runs" >"$out/check.txt" <<'PY' || status=1
import json, sys
quiet_dir, out, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])

def rows(d):
    doc = json.load(open(f"{d}/results.json"))
    cpus = doc["metadata"].get("host_cpus") or 0
    return {r["case_id"]: (r, cpus) for r in doc["results"]}

def marks(r, cpus):
    m = []
    others = r.get("host_others")  # core/host_load.hpp's case_busy
    if (others > 0.25) if others is not None else (cpus > 0 and (r.get("host_load") or -1) > cpus):
        m.append("busy")
    if r.get("ceiling_disturbed"):
        m.append("disturbed")
    if r.get("ceiling_high") is not None:
        m.append("uncertain ceiling")
    return m

quiet = rows(quiet_dir)
bad = 0
print("| run | case | quiet % | loaded % | points | marks | verdict |")
print("|---|---|---|---|---|---|---|")
for i in range(1, runs + 1):
    for cid, (r, cpus) in rows(f"{out}/loaded-{i}").items():
        q = quiet[cid][0]["pct_of_ceiling"]
        p = r["pct_of_ceiling"]
        m = marks(r, cpus)
        off = abs(p - q) if p is not None and q is not None else None
        ok = bool(m) or (off is not None and off <= 15)
        bad += not ok
        pts = f"{off:.1f}" if off is not None else "-"
        verdict = "marked" if m else ("within 15" if ok else "UNMARKED, OFF")
        print(f"| {i} | {cid} | {q:.1f} | {p:.1f} | {pts} | {', '.join(m) or '-'} | {verdict} |")
print(f"\n{bad} row(s) off by more than 15 points and unmarked")
sys.exit(1 if bad else 0)
PY
cat "$out/check.txt"

loaded=()
for i in $(seq "$runs"); do loaded+=("$out/loaded-$i"); done
"$miniapp" report "${loaded[@]}" "$gpu" --title "paper_table1 under a load of 2x the CPUs, and a GPU run" \
  -o "$out/report"
chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=1400,6000 \
  --screenshot="$out/report.png" "file://$(realpath "$out/report")/index.html" 2>/dev/null
exit "$status"
