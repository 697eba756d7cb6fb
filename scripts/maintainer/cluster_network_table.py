#!/usr/bin/env python3
"""SUMMA's network term against the local cluster (scripts/maintainer/cluster-network-term.sh): for
each product of the 2- and 4-node runs in OUT (np2/, np4/; np1/ is the one-rank run), the measured
time beside the model's (`miniapp validate --ranks N --rates ...`, parallel/summa_model.*):
    cluster_network_table.py MINIAPP OUT     (prints a Markdown table)
Rates, all measured (docs/mpi.md, "Model"):
  gemm_tflops  the local product as it ran under SUMMA: 2 rows cols k over the mean rank's compute
               time (host: the C += T accumulation is in it, no hbm_gbs is given);
  staging_gbs  host ranks: the panel bytes a rank sends or receives over its packing time (the
               transfer column), as scripts/maintainer/summa_rates.py derives it;
  net_gbs, net_us  three ways, a prediction each: the link as TCP carries it (link.json:
               scripts/maintainer/link_probe.py between two nodes, payload rate and half a small
               message's round trip); as MPI carries it (mpi_link.json:
               scripts/maintainer/mpi_bcast_probe.c, a broadcast between two nodes fitted as
               alpha + bytes / beta); and the link's stated rate (tc's, on every packet's bytes).
One rank per node (gpus_per_node=1), so every broadcast of the 1x2 and 2x2 grids crosses nodes."""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import summa_rates  # noqa: E402


def f(row, key):
    return float(row.get(key) or 0)


def rates(row, net_gbs, net_us):
    p, q = int(row["grid_p"]), int(row["grid_q"])
    rows, cols = -(-int(row["m"]) // p), -(-int(row["n"]) // q)
    k = int(row["k"])
    packing = f(row, "transfer_rank_mean_s") - f(row, "h2d_median_s") - f(row, "d2h_median_s")
    return [f"gemm_tflops={2.0 * rows * cols * k / f(row, 'compute_rank_mean_s') / 1e12:.5f}",
            f"staging_gbs={summa_rates.traffic(row) / max(packing, 1e-9) / 1e9:.3f}",
            f"net_gbs={net_gbs:.5f}", f"net_us={net_us:.1f}", "gpus_per_node=1"]


def main(argv):
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    miniapp, out = argv[1], argv[2]
    link = json.load(open(os.path.join(out, "link.json")))
    mpi = json.load(open(os.path.join(out, "mpi_link.json")))
    config = os.path.join(out, "config.yaml")
    ones = {r["variant"] + r["k"] + str(i): r
            for i, r in enumerate(summa_rates.product_rows(os.path.join(out, "np1", "results.csv")))}
    print(f"link: stated {link['stated_gbs'] * 8:.3f} Gbit/s; TCP payload measured "
          f"{link['payload_gbs'] * 8:.3f} Gbit/s ({100 * link['payload_gbs'] / link['stated_gbs']:.1f}% "
          f"of it), latency {link['latency_us']:.0f} us; an MPI broadcast between two nodes: "
          f"{mpi['beta_gbs'] * 8:.3f} Gbit/s, {mpi['alpha_us'] / 1e3:.2f} ms a message "
          f"(medians {', '.join(f'{t * 1e3:.1f}' for t in mpi['median_s'])} ms at "
          f"{', '.join(str(b >> 10) for b in mpi['sizes'])} KiB)\n")
    print("| nodes | grid | block | size | load | measured (ms) | compute (ms) | comm (ms) | "
          "predicted, TCP's rate (ms) | error | predicted, MPI's alpha and beta (ms) | error | "
          "predicted, the stated rate (ms) | error | rates |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for nodes in (2, 4):
        for i, r in enumerate(summa_rates.product_rows(os.path.join(out, f"np{nodes}", "results.csv"))):
            one = ones.get(r["variant"] + r["k"] + str(i))
            if r["status"] != "ok" or one is None:
                continue
            items = rates(r, link["payload_gbs"], link["latency_us"])
            measured = f(r, "time_median_s") * 1e3
            p = summa_rates.predict(miniapp, config, r, items)
            m = summa_rates.predict(miniapp, config, r, rates(r, mpi["beta_gbs"], mpi["alpha_us"]))
            s = summa_rates.predict(miniapp, config, r, items[:2] + [
                f"net_gbs={link['stated_gbs']:.5f}"] + items[3:])
            if p is None or m is None or s is None:
                print(f"| {nodes} | {r['grid_p']}x{r['grid_q']} | {one['m']} | no prediction |")
                continue
            print(f"| {nodes} | {r['grid_p']}x{r['grid_q']} | {one['m']} | "
                  f"{r['m']}x{r['n']}x{r['k']} | {f(r, 'host_load'):.1f} | {measured:.1f} | "
                  f"{f(r, 'compute_rank_mean_s') * 1e3:.1f} | {f(r, 'comm_rank_mean_s') * 1e3:.1f} | "
                  f"{p['ms']:.1f} | {100 * (p['ms'] - measured) / measured:+.1f}% | "
                  f"{m['ms']:.1f} | {100 * (m['ms'] - measured) / measured:+.1f}% | "
                  f"{s['ms']:.1f} | {100 * (s['ms'] - measured) / measured:+.1f}% | "
                  f"{' '.join(items[:2])} |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
