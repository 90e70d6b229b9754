#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
#
# The speed-up of a packet-level run partitioned over N MPI ranks, modelled
# from the synchronisation cost measured by bench-mpi-sync
# (benchmarks/mpi/mpi-sync-bench.cc; benchmarks/README.md, "Past one machine"):
#
#   T(N) = T_seq / N * imbalance                      (the events, shared out)
#        + crossings(N) * c_cross / N                 (packets serialised through MPI)
#        + (T_sim / lookahead) * c_sync(N)            (one synchronisation per window)
#   speed-up(N) = T_seq / T(N)
#
# c_sync(N): granted time window = c_sync(2) * log2 N (its MPI_Allgather of
# every rank's LBTS is log2 N rounds for small messages); null messages =
# c_sync(2) * (N - 1) (a null message to every neighbouring rank per window; an
# AllToAll's partition makes every rank a neighbour of every other).
#
#   mpi-speedup-model.py [--measured DIR]           the model's table
#   mpi-speedup-model.py --check-json FILE [--expect-ranks=N] [--expect-sync=S]
#                                                   ctest: a bench JSON is whole
import argparse
import json
import math
import os
import sys

# Measured on this project's machine (2 cores, 2026-12-02) with
# `mpirun -np N bench-mpi-sync --windows=20000 [--packets-per-window=8]`:
# seconds of wall time per window (per simulated lookahead), the sequential
# run (no MPI) being the baseline. --measured DIR replaces them with
# DIR/mpi-sync-{N}-{sync}-{packets}.json.
MEASURED = {
    # (ranks, sync, packets per window): wall seconds per window
    (1, "sequential", 0): 2.83e-7,
    (2, "gtw", 0): 1.26e-6,
    (2, "gtw", 8): 8.57e-5,
    (2, "nullmsg", 0): 6.92e-6,
    (2, "nullmsg", 8): 1.10e-4,
    # 4 ranks on 2 cores (oversubscribed): an upper bound, not used by the model
    (4, "gtw", 0): 2.06e-5,
    (4, "nullmsg", 0): 4.21e-5,
}

# The fabrics: AllToAll of 1 MB per pair (--bytes = ranks x 1 MB). 1024 GPUs:
# `hockney compare --topology=fat-tree-k16 --collective=alltoall
# --bytes=1024MB --backends=closed,packet --wall-limit=0s` printed
#   packet run estimate: 3.4e+09 events, 6.3 GB, ~6.2 h (... 1047552 messages,
#   1.5e+09 data hops, 4.9e+07 control hops)
# and the closed form's time_s 0.08959. The 4096-GPU fabric (fat-tree-k26,
# --ranks=4096) is too large for this machine's estimate (routes: > 4.5 GB);
# it is the 1024-GPU one scaled: 16.0x the messages, the same hops per message
# (5.9 links on average in both fat trees), the estimate's per-event cost
# growing with log2(messages / 100) (kQueueGrowth 0.3, packet-run-estimate.cc
# as fitted on 2026-12-02; 0.2 since the refit of 2026-12-04, not re-run here),
# the closed-form time x 4095 / 1023 (each GPU's NIC sends N - 1 MB).
FABRICS = {
    "fat-tree-k16 (1024 GPUs)": dict(gpus=1024, k=16, t_seq=6.2 * 3600, t_sim=0.08959, data_hops=1.5e9,
                                     control_hops=4.9e7, messages=1047552, memory=6.3e9, nodes=1024 + 320),
}
_m = 4096 * 4095
_q = (1 + 0.3 * math.log2(_m / 100)) / (1 + 0.3 * math.log2(1047552 / 100))
FABRICS["fat-tree-k26, 4096 of its hosts (4096 GPUs)"] = dict(
    gpus=4096, k=26, t_seq=6.2 * 3600 * _m / 1047552 * _q, t_sim=0.08959 * 4095 / 1023,
    data_hops=1.5e9 * _m / 1047552, control_hops=4.9e7 * _m / 1047552, messages=_m, memory=None,
    nodes=4394 + 5 * 26 * 26 // 4)

# Lookahead of each partition = the smallest Delay of a link it cuts (the
# fat tree's RoceTier delays, contrib/fabric/model/topology-presets-tiers.cc:
# host-edge 10 ns, edge-aggregation and aggregation-core 100 ns). Crossings
# per packet that leaves its rank: by pod, agg->core and core->agg (the core
# on a third rank); by edge switch, up to 4 (edge->agg, agg->core, core->agg,
# agg->edge); by host, 2 more (host->edge, edge->host).
PARTITIONS = [
    # name, lookahead s, crossings of a packet that leaves its rank, most ranks (in pods/edges/hosts)
    ("by host (hosts apart from their edge)", 10e-9, 6, lambda f: f["gpus"]),
    ("by edge switch / ToR (hosts with their edge)", 100e-9, 4, lambda f: f["k"] * f["k"] // 2),
    ("by pod (whole pods, cores spread)", 100e-9, 2, lambda f: f["k"]),
]
MEAN_HOPS = 5.9  # links of an AllToAll's average path in a k = 16..26 fat tree (6 across pods, 15/16 of pairs)


def load_measured(directory):
    m = dict(MEASURED)
    if directory:
        for name in os.listdir(directory):
            if name.startswith("mpi-sync-") and name.endswith(".json"):
                j = json.load(open(os.path.join(directory, name)))
                m[(j["ranks"], j["sync"], j["packets_per_window"])] = j["wall_per_window_s"]
    return m


def model(measured, out):
    seq = measured[(1, "sequential", 0)]
    c_sync2 = {s: measured[(2, s, 0)] - seq for s in ("gtw", "nullmsg")}
    # One crossing: the 8-packet run's extra cost over the empty one, per packet.
    c_cross = {s: (measured[(2, s, 8)] - measured[(2, s, 0)]) / 8 for s in ("gtw", "nullmsg")}
    out.write("measured: sync per window at 2 ranks: gtw %.2f us, nullmsg %.2f us; one packet crossing ranks: "
              "gtw %.1f us, nullmsg %.1f us\n" % (c_sync2["gtw"] * 1e6, c_sync2["nullmsg"] * 1e6,
                                                   c_cross["gtw"] * 1e6, c_cross["nullmsg"] * 1e6))
    for fname, f in FABRICS.items():
        out.write("\n%s: T_seq %.0f s (estimate), T_sim %.1f ms, %.2g data + %.2g control hops\n" % (
            fname, f["t_seq"], f["t_sim"] * 1e3, f["data_hops"], f["control_hops"]))
        out.write("  %-46s %-8s %6s %10s %10s %10s %8s\n" % ("partition", "sync", "ranks", "T(N) s", "sync s",
                                                               "cross s", "speedup"))
        for pname, lookahead, cross_per_packet, most in PARTITIONS:
            for sync in ("gtw", "nullmsg"):
                for n in (16, 32, 64):
                    if n > most(f):
                        continue
                    c_sync = c_sync2[sync] * (math.log2(n) if sync == "gtw" else (n - 1))
                    windows = f["t_sim"] / lookahead
                    t_sync = windows * c_sync
                    hops = f["data_hops"] + f["control_hops"]
                    crossings = hops / MEAN_HOPS * cross_per_packet * (1 - 1 / n)
                    t_cross = crossings * c_cross[sync] / n
                    imbalance = 1.0  # an AllToAll on a symmetric partition: every rank the same events
                    t = f["t_seq"] / n * imbalance + t_cross + t_sync
                    out.write("  %-46s %-8s %6d %10.0f %10.1f %10.0f %8.1f\n" % (
                        pname, sync, n, t, t_sync, t_cross, f["t_seq"] / t))
    out.write("\nMemory per rank: every rank builds the whole topology and keeps its own messages' state; "
              "1024 GPUs: ~6.3 GB / N + the topology (%.0f MB) + the MPI library (~8 MB measured: 21 MB a rank "
              "against 13 MB sequential)\n" % (20e3 * FABRICS["fat-tree-k16 (1024 GPUs)"]["nodes"] / 1e6))


def check_json(path, ranks, sync):
    try:
        j = json.load(open(path))
    except (OSError, ValueError) as e:
        print("%s: not readable JSON: %s" % (path, e))
        return 1
    need = ["sync", "ranks", "windows", "lookahead_s", "wall_s", "wall_per_window_s", "wall_s_per_rank",
            "peak_rss_bytes_per_rank", "packets_sent", "packets_received"]
    missing = [k for k in need if k not in j]
    if missing:
        print("%s: missing %s" % (path, ", ".join(missing)))
        return 1
    if ranks is not None and (j["ranks"] != ranks or len(j["wall_s_per_rank"]) != ranks
                              or len(j["peak_rss_bytes_per_rank"]) != ranks):
        print("%s: expected %d ranks, got %s" % (path, ranks, j["ranks"]))
        return 1
    if sync is not None and j["sync"] != sync:
        print("%s: expected sync %s, got %s" % (path, sync, j["sync"]))
        return 1
    if j["packets_sent"] != j["packets_received"]:
        print("%s: %d packets sent, %d received" % (path, j["packets_sent"], j["packets_received"]))
        return 1
    print("%s: ok" % path)
    return 0


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--check-json")
    p.add_argument("--expect-ranks", type=int)
    p.add_argument("--expect-sync")
    p.add_argument("--measured", help="directory of bench-mpi-sync JSON files mpi-sync-N-SYNC-PACKETS.json")
    a = p.parse_args()
    if a.check_json:
        return check_json(a.check_json, a.expect_ranks, a.expect_sync)
    model(load_measured(a.measured), sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
