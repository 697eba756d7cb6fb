# shellcheck shell=bash
# shellcheck disable=SC2154 # miniapp, here, scratch: set by local_cluster_test.sh, which sources this
# A weak study across nodes on the running cluster of local_cluster_test.sh (sourced there, before
# the stop check): tests/slurm/cluster_study.yaml (SUMMA, one 256 x 256 block per rank, one rank
# per node, 1, 2 and 4 nodes) submitted, followed and collected as a user would, from the head
# node: `study submit`, the jobs waited for by their states (job_wait.sh), `study status`, and the
# collect job's `study collect`. Every point must end done with complete, validated results whose
# ranks ran on as many different nodes as the point has nodes, and the report's scaling table and
# its runs' names must say nodes and ranks per node.
study_started=$(date +%s)
mkdir -p "$scratch/study"
cp "$here/cluster_study.yaml" "$here/cluster_summa.yaml" "$scratch/study/"
study=$scratch/study/cluster_study.yaml
study_dir=$scratch/study/weak_cluster
submitted=$(cd "$scratch/study" && on_head 60 "$miniapp" study submit "$study" 2>&1)
mapfile -t point_jobs < <(sed -n 's/^  \[[1-3]\] local-cluster: .*: job \([0-9]*\), .*/\1/p' <<<"$submitted")
collect_job=$(sed -n 's/^  collect: job \([0-9]*\) after 3 job(s).*/\1/p' <<<"$submitted")
if [[ ${#point_jobs[@]} -ne 3 || -z $collect_job ]]; then
  fail "the 1/2/4-node study was not submitted: $submitted"
else
  for job in "${point_jobs[@]}" "$collect_job"; do wait_job "$job"; done
  status=$(on_head 30 "$miniapp" study status "$study" 2>&1)
  for i in 1 2 3; do
    nodes=$((1 << (i - 1)))
    grep -q "^  \[$i\] local-cluster: $nodes node(s) x 1 rank(s) per node: done (job ${point_jobs[i - 1]}), results complete, 1 of 1 case(s)" <<<"$status" ||
      fail "study point $i ($nodes node(s)) not done with complete results: $(grep "^  \[$i\]" <<<"$status")"
  done
  verify "study status: 3 points done, the collect job done" \
    grep -Pzq "  collect: done \(job $collect_job\)\npoints: 3 done\n" <<<"$status"
  # Each point's run: complete, every row valid, at the weak sizes, on `nodes` different nodes
  # over TCP; and the collected report: a scaling row per point naming nodes and ranks per node,
  # the comparison naming each run by its point, the database holding the three runs.
  summary=$(python3 - "$study_dir" <<'PY'
import html, json, re, sqlite3, sys
d = sys.argv[1]
problems, hosts = [], []
for i, (nodes, m, n) in enumerate([(1, 256, 256), (2, 256, 512), (4, 512, 512)], 1):
    doc = json.load(open(f"{d}/results/point-{i}/results.json"))
    md, rows = doc["metadata"], doc["results"]
    where = md.get("mpi_hosts") or [md.get("host_name")]
    hosts.append("+".join(where))
    if not doc.get("complete") or not rows or any(r.get("valid") is not True for r in rows):
        problems.append(f"point {i}: not complete and valid")
    if (md.get("mpi_ranks", 1), len(set(where))) != (nodes, nodes):
        problems.append(f"point {i}: {md.get('mpi_ranks')} rank(s) on {where}, want {nodes} nodes")
    if [(r["m"], r["n"], r["k"]) for r in rows] != [(m, n, 256)]:
        problems.append(f"point {i}: sizes {[(r['m'], r['n'], r['k']) for r in rows]}")
    if nodes > 1 and md.get("environment", {}).get("OMPI_MCA_btl") != "self,tcp":
        problems.append(f"point {i}: not held to TCP")
page = open(f"{d}/report/index.html").read()
table = page[page.find('<table id="scaling-table">'):]
table = table[:table.find("</table>")]
if "<th>nodes</th><th>ranks per node</th><th>ranks</th>" not in table:
    problems.append("the scaling table's header names no nodes and ranks per node")
cells = [[html.unescape(c) for c in re.findall(r"<td>(.*?)</td>", row)]
         for row in re.findall(r'<tr class="scaling-row">(.*?)</tr>', table)]
if [c[2:5] for c in cells] != [["1", "1", "1"], ["2", "1", "2"], ["4", "1", "4"]]:
    problems.append(f"scaling rows (nodes, ranks per node, ranks): {[c[2:5] for c in cells]}")
for nodes in (1, 2, 4):
    if f"local-cluster: {nodes} node(s) x 1 rank(s) per node" not in html.unescape(page):
        problems.append(f"the report names no run '{nodes} node(s) x 1 rank(s) per node'")
runs = sqlite3.connect(f"{d}/history.db").execute("SELECT ranks FROM runs ORDER BY ranks").fetchall()
if runs != [(1,), (2,), (4,)]:
    problems.append(f"history database runs of {runs} ranks")
print("; ".join(problems) if problems else
      "3 points valid on " + ", ".join(hosts) + "; the scaling table names nodes and ranks per node")
sys.exit(1 if problems else 0)
PY
  ) || fail "the 1/2/4-node study: $summary (collect log: $(tail -n 5 "$study_dir"/*-collect-*.out 2>&1))"
  [[ $summary == 3\ points\ valid* ]] && pass "the 1/2/4-node study collected: $summary"
fi
echo "the study across nodes took $(($(date +%s) - study_started)) s"
