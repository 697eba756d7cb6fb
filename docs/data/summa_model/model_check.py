#!/usr/bin/env python3
"""SUMMA's cost model (miniapp/parallel/summa_model.*) against every measured multi-GPU point under
docs/data/weak_scaling-*, then tabulated to 1,024 GPUs, all through `miniapp validate --ranks N
--rates ...` (the model as shipped). Usage, from the repository root:
    python3 docs/data/summa_model/model_check.py build/openmp/bin/miniapp > docs/data/summa_model/model_check.txt
Rates: the one-GPU GEMM rate of the same series (np1), HBM 4.2 TB/s (H200 copy, measured), the IPC
peer copy's effective rate from the IPC runs' exposed first panel (0.64 ms for 32 MiB: 52 GB/s),
and for host staging the MPI and staging rates of the 2-GPU w = 1024 run of the same series
(communication and transfer columns, the block upload and download taken out)."""
import csv, os, re, subprocess, sys

BIN = sys.argv[1]
DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
FLOPS = 2.0 * 8192 ** 3


def predict(ranks, settings, rates):
    cmd = [BIN, "validate", "configs/weak_scaling.yaml", "--ranks", str(ranks), "--set",
           "validation.enabled=false", *settings, "--rates", *rates]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    lines = re.findall(r"\[(\d+)\] model: (\S+) over (\d+) node\(s\), (\d+) panel\(s\): ([\d.]+) ms "
                       r"per product \(ideal ([\d.]+), exposed ([\d.]+)\), efficiency ([\d.]+)%; "
                       r"panel (\d+) would give ([\d.]+)%", out)
    return {int(l[0]): l for l in lines}  # case index (1 = vendor, 2 = tiled_rb)


def measured(series, run):
    path = os.path.join(DATA, series, run)
    for root, _, files in os.walk(path):
        if "results.csv" in files:
            return {r["variant"]: r for r in csv.DictReader(open(os.path.join(root, "results.csv")))
                    if r["family"] == "matmul"}
    return {}


def weak_settings(p, q, panel, transport):
    s = [f"mpi.panel={panel}", f"mpi.transport={transport}", f"mpi.grid=[{p},{q}]"]
    for c in range(3):
        s += [f"cases.{c}.m={8192 * p}", f"cases.{c}.n={8192 * q}"]
    return s


print("== Measured points (weak scaling, one 8192^2 float32 block per GPU, k = 8192)")
print(f"{'series':22} {'run':22} {'variant':9} {'grid':4} {'panel':>5} {'transport':10} "
      f"{'measured ms':>11} {'predicted ms':>12} {'error':>7}  {'meas. eff':>9} {'pred. eff':>9}")
points = [  # series, run, grid, panel, transport; rates of the series' 2-GPU w = 1024 run
    ("weak_scaling-h200x2-ipc", "np2-ipc", (1, 2), 1024, "device_ipc"),
    ("weak_scaling-h200x2-ipc", "np2-auto-final", (1, 2), 1024, "device_ipc"),
    ("weak_scaling-h200x2-ipc", "np2-auto-panel512", (1, 2), 512, "device_ipc"),
    ("weak_scaling-h200x2-ipc", "np2-ipc-panel2048", (1, 2), 2048, "device_ipc"),
    ("weak_scaling-h200x2-ipc", "np2-host", (1, 2), 1024, "host"),
    ("weak_scaling-h200x4", "np2-panel512", (1, 2), 512, "host"),
    ("weak_scaling-h200x4", "np2-panel1024", (1, 2), 1024, "host"),
    ("weak_scaling-h200x4", "np2-panel2048", (1, 2), 2048, "host"),
    ("weak_scaling-h200x4", "np4-panel512", (2, 2), 512, "host"),
    ("weak_scaling-h200x4", "np4-panel1024", (2, 2), 1024, "host"),
    ("weak_scaling-h200x4", "np4-panel2048", (2, 2), 2048, "host"),
]
MiB = 1024.0 ** 2
errors = []
for series, run, (p, q), panel, transport in points:
    one = measured(series, "np1")
    ref = measured(series, "np2-host" if series.endswith("ipc") else "np2-panel1024")
    for idx, variant in ((1, "vendor"), (2, "tiled_rb")):
        t1 = float(one[variant]["time_median_s"])
        r = ref[variant]
        uploads = float(one[variant]["transfer_rank_max_s"])  # block upload + download, 1 rank
        node_gbs = 8 * 32 * MiB / float(r["comm_rank_max_s"]) / 1e9  # 8 broadcasts of 32 MiB
        staging_gbs = 16 * 32 * MiB / (float(r["transfer_rank_max_s"]) - uploads) / 1e9
        rates = [f"gemm_tflops={FLOPS / t1 / 1e12:.3f}", "hbm_gbs=4200", "ipc_gbs=52",
                 f"node_gbs={node_gbs:.2f}", f"staging_gbs={staging_gbs:.2f}", "gpus_per_node=8"]
        pred = predict(p * q, weak_settings(p, q, panel, transport), rates)[idx]
        m = measured(series, run)[variant]
        tm, tp = float(m["time_median_s"]) * 1e3, float(pred[4])
        err = (tp - tm) / tm
        errors.append(abs(err))
        print(f"{series:22} {run:22} {variant:9} {p}x{q}  {panel:5} {transport:10} {tm:11.2f} "
              f"{tp:12.2f} {100 * err:+6.1f}%  {100 * t1 * 1e3 / tm:8.0f}% {float(pred[7]):8.0f}%"
              + ("" if transport != "host" else f"   (node {node_gbs:.1f} GB/s, staging {staging_gbs:.1f} GB/s)"))
print(f"largest error {100 * max(errors):.1f}%, mean {100 * sum(errors) / len(errors):.1f}% over {len(errors)} points")

print()
print("== Predicted weak scaling to 1,024 GPUs (vendor GEMM 50.7 TFLOP/s per GPU, 4 GPUs per node,")
print("   inside a node 52 GB/s per peer copy or MPI message (the IPC runs' effective rate),")
print("   network 4 x 200 Gb/s = 100 GB/s per node, 2 us; device_mpi, pipelined broadcasts)")
print(f"{'GPUs':>5} {'grid':>6} {'nodes':>5} {'eff w=1024':>10} {'best w':>6} {'eff best':>8} "
      f"{'eff 1x100Gb/s, best w':>22}")
base = ["gemm_tflops=50.67", "hbm_gbs=4200", "ipc_gbs=52", "ipc_us=10", "node_gbs=52", "node_us=5",
        "gpus_per_node=4"]
for p, q in ((1, 2), (2, 2), (2, 4), (4, 4), (4, 8), (8, 8), (8, 16), (16, 16), (16, 32), (32, 32)):
    n = p * q
    fast = predict(n, weak_settings(p, q, 1024, "auto"), base + ["net_gbs=100", "net_us=2"])[1]
    slow = predict(n, weak_settings(p, q, 1024, "auto"), base + ["net_gbs=12.5", "net_us=2"])[1]
    print(f"{n:5} {p:>2}x{q:<3} {int(fast[2]):5} {float(fast[7]):9.1f}% {int(fast[8]):6} "
          f"{float(fast[9]):7.1f}% {float(slow[9]):13.1f}% (w={slow[8]})")

print()
print("== Predicted strong scaling: one n^2 float32 product on 2 GPUs of one node (IPC, rates above)")
for n in (2048, 4096, 8192, 16384, 32768):
    cmd = [BIN, "validate", "configs/strong_scaling.yaml", "--ranks", "2", "--set",
           f"cases.0.m={n}", f"cases.0.n={n}", f"cases.0.k={n}", "--rates", "gemm_tflops=50.67",
           "hbm_gbs=4200", "ipc_gbs=52", "gpus_per_node=8"]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    print(f"n={n:5}: " + re.search(r"\[1\] model: (.*)", out).group(1))
