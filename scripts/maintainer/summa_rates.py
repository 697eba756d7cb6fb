#!/usr/bin/env python3
"""SUMMA's cost model against a measured run: the rates a multi-rank run measured (its results.csv
row and the one-rank row of the same case), handed to `miniapp validate --ranks N --rates ...`
(parallel/summa_model.*), and the prediction read back. Used by scripts/maintainer/gpu-weak-scaling.sh (the
prediction beside each measurement in summary.txt) and docs/data/summa_model/model_check.py.

    python3 scripts/maintainer/summa_rates.py MINIAPP CONFIG ONE_RANK_CSV RUN_CSV [--set ...]
prints, per product row of RUN_CSV (a case with an inner dimension k), the measured time and efficiency beside the predicted ones.

Rates from the run itself (docs/mpi.md, "Model"):
  gemm_tflops  the local product as it ran under SUMMA: 2 rows cols k over the mean rank's
               compute time less the C += T accumulations (3 rows cols e / HBM per panel but one);
  node_gbs     device_mpi and host: the panel bytes a rank sends or receives per product over the
               mean rank's time in MPI (comm_rank_mean_s);
  staging_gbs  host: the same bytes (one copy of every panel a rank sends or receives) over the
               mean rank's transfer time less the block upload and download (h2d_median_s,
               d2h_median_s), packing included;
  ipc_gbs      device_ipc: the first panel's bytes that travel (A, and B too on a P x Q grid
               with P > 1: one copy after the other), the one transfer nothing hides, over the
               mean rank's exposed time.
Efficiency, measured and predicted: t1 / (N tN) for the same product (strong scaling), t1 / tN for
one block per rank (weak scaling).
"""
import csv
import re
import subprocess
import sys

LINE = re.compile(r"\[(\d+)\] model: (\S+) over (\d+) node\(s\), (\d+) panel\(s\): ([\d.]+) ms per "
                  r"product \(ideal ([\d.]+), exposed ([\d.]+)\), efficiency ([\d.]+)%; panel (\d+) "
                  r"would give ([\d.]+)%")


def f(row, key):
    return float(row.get(key) or 0)


def traffic(row):
    """Panel bytes per product that the largest rank sends or receives: every A panel of its
    process row (when the row has others), every B panel of its column (likewise)."""
    p, q = int(row["grid_p"]), int(row["grid_q"])
    m, n, k = int(row["m"]), int(row["n"]), int(row["k"])
    e = 8 if row["precision"] == "float64" else 4
    rows, cols = -(-m // p), -(-n // q)
    return (rows * k * e if q > 1 else 0) + (k * cols * e if p > 1 else 0)


def rates(row, hbm_gbs, gpus_per_node):
    """--rates items from a multi-rank row. The product's rate is the one it had under SUMMA (the run's compute
    column less the C += T accumulations): it runs 3-8% slower while panels move than alone."""
    p, q = int(row["grid_p"]), int(row["grid_q"])
    m, n, k, w = int(row["m"]), int(row["n"]), int(row["k"]), int(row["panel"])
    e = 8 if row["precision"] == "float64" else 4
    rows, cols = -(-m // p), -(-n // q)
    panels = -(-k // w)
    accumulate = (panels - 1) * 3 * rows * cols * e / (hbm_gbs * 1e9)
    product = f(row, "compute_rank_mean_s") - accumulate
    out = [f"gemm_tflops={2.0 * rows * cols * k / product / 1e12:.3f}", f"hbm_gbs={hbm_gbs}",
           f"gpus_per_node={gpus_per_node}"]
    moved = traffic(row)
    copies = f(row, "transfer_rank_mean_s") - f(row, "h2d_median_s") - f(row, "d2h_median_s")
    t = row["transport"]
    if t in ("device_mpi", "host"):
        out.append(f"node_gbs={moved / f(row, 'comm_rank_mean_s') / 1e9:.2f}")
    if t == "host":  # runs before B panels stopped being staged on 1 x Q: their copies are in it
        out.append(f"staging_gbs={moved / copies / 1e9:.2f}")
    if t == "device_ipc":  # the first panel's peer copies are what stays exposed: on a P x Q
        # grid a rank copies the A panel and then the B panel, one after the other on one stream
        first = (rows * w * e if q > 1 else 0) + (w * cols * e if p > 1 else 0)
        out.append(f"ipc_gbs={first / max(f(row, 'exposed_rank_mean_s'), 1e-6) / 1e9:.2f}")
    return out


def predict(miniapp, config, row, rate_items, settings=()):
    """The model's line for the case of `row` (its size, grid, panel and transport)."""
    ranks = int(row["ranks"])
    s = [f"mpi.grid=[{row['grid_p']},{row['grid_q']}]", f"mpi.panel={row['panel']}",
         f"mpi.transport={row['transport']}", f"cases.0.variant={row['variant']}",
         f"cases.0.m={row['m']}", f"cases.0.n={row['n']}", f"cases.0.k={row['k']}",
         "validation.enabled=false", *settings]
    cmd = [miniapp, "validate", config, "--ranks", str(ranks), "--set", *s, "--rates", *rate_items]
    out = subprocess.run(cmd, capture_output=True, text=True).stdout
    hit = LINE.search(out)
    return None if not hit else {"ms": float(hit.group(5)), "eff": float(hit.group(8)),
                                 "exposed_ms": float(hit.group(7)), "best_panel": int(hit.group(9)),
                                 "best_eff": float(hit.group(10))}


def product_rows(path):
    """The rows of a results.csv with an inner dimension k > 0 (the products SUMMA distributes);
    rows written before the `transport` column existed (2026-11-22, before CUDA IPC) were staged
    through the host."""
    try:
        rows = [r for r in csv.DictReader(open(path, newline="")) if int(r.get("k") or 0) > 0]
    except OSError:
        return []
    for r in rows:
        if "transport" not in r:
            r["transport"] = "host" if int(r["ranks"]) > 1 else ""
    return rows


def main(argv):
    if len(argv) < 5:
        print(__doc__, file=sys.stderr)
        return 2
    miniapp, config, one_csv, run_csv = argv[1:5]
    hbm = 3000  # H100 SXM device copy, GB/s (the model's packing and C += T)
    ones = {(r["variant"], r["m"], r["n"], r["k"]): r for r in product_rows(one_csv)}
    weak = {(r["variant"], r["k"]): r for r in product_rows(one_csv)}  # one block per rank
    print(f"{'case':28} {'transport':>10} {'panel':>5} {'meas ms':>9} {'pred ms':>9} {'error':>7} "
          f"{'meas eff':>8} {'pred eff':>8} {'1-GPU rate: pred eff':>20}  rates (same run)")
    for r in product_rows(run_csv):
        one = ones.get((r["variant"], r["m"], r["n"], r["k"]), weak.get((r["variant"], r["k"])))
        if r["status"] not in ("ok", "invalid") or one is None or int(r["ranks"]) < 2:
            continue
        items = rates(r, hbm, int(r["ranks"]))
        p = predict(miniapp, config, r, items)
        alone = 2.0 * int(one["m"]) * int(one["n"]) * int(one["k"]) / f(one, "time_median_s")
        p1 = predict(miniapp, config, r, [f"gemm_tflops={alone / 1e12:.3f}"] + items[1:])
        tm, t1 = f(r, "time_median_s") * 1e3, f(one, "time_median_s") * 1e3
        strong = (r["m"], r["n"]) == (one["m"], one["n"])  # else weak: one block per rank
        per = int(r["ranks"]) if strong else 1
        name = f"{r['variant']} {r['m']}x{r['n']}x{r['k']}"
        if p is None:
            print(f"{name:28} {r['transport']:>10} {r['panel']:>5} {tm:9.2f}   (no prediction)")
            continue
        print(f"{name:28} {r['transport']:>10} {r['panel']:>5} {tm:9.2f} {p['ms']:9.2f} "
              f"{100 * (p['ms'] - tm) / tm:+6.1f}% {100 * t1 / (tm * per):7.0f}% "
              f"{100 * t1 / (p['ms'] * per):7.0f}% {100 * t1 / (p1['ms'] * per):19.0f}%  "
              + " ".join(items[:1] + items[3:]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
