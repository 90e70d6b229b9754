#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
#
# `./hockney bench`: runs every build/bin/bench-* program with Google
# Benchmark's JSON output, merges the results into one DIR/bench.json and
# prints each figure next to its baseline measured in the same run. Machines
# are shared and absolute figures drift; the ratio to a baseline that ran
# minutes earlier on the same machine is the number to compare across runs.
#
#   bench-run.py [--smoke] [--filter=REGEX] [--output=DIR] [--build-dir=DIR]
#   bench-run.py --check-json FILE...   (exit 1 unless each FILE is benchmark JSON)
#
# Standard library only.
import datetime
import json
import os
import re
import subprocess
import sys
import time

# Each figure and the benchmark it is measured against. A figure is a
# benchmark name (regex, matched on the whole name without Google Benchmark's
# iterations:/manual_time suffixes) and its metrics; each metric maps to the
# baseline's metric or to None (no baseline for it: printed as "-"). A
# baseline with the same arguments is preferred (BM_FabricChain/4/20000 with
# BM_PointToPointChain/4/20000); otherwise the first baseline found. A missing
# baseline prints "-".
FIGURES = [
    {
        "figure": r"BM_FabricChain/.*",
        "baseline": r"BM_PointToPointChain/.*",
        "metrics": {"hops_per_s": "hops_per_s", "ns_per_hop": "ns_per_hop", "events_per_hop": "events_per_hop"},
    },
    {
        "figure": r"BM_AlphaBetaTimeSecondsProtocolSCurve",
        "baseline": r"BM_BareFormula",
        "metrics": {"evals_per_s": "evals_per_s"},
    },
    {
        "figure": r"BM_AnalyticChannelNone(/.*)?",
        "baseline": r"BM_SimpleChannelBaseline(/.*)?",
        "metrics": {"msgs_per_s": "msgs_per_s"},
    },
]

# The scale series gets a table of its own: one row a case.
SCALE = r"BM_Scale/.*"
SCALE_BASELINE = r"BM_ScaleBaselinePointToPoint(/.*)?"
# The same chain side by side, as many devices as a topology has ports: what
# the memory hierarchy does to ns-3's own cost per hop as the working set grows.
SCALE_WIDE = r"BM_ScaleBaselinePointToPointWide/.*"

# A counter named in a table may be missing from an older program that
# reports the same figure under Google Benchmark's generic name.
FALLBACK = {"evals_per_s": "items_per_second", "msgs_per_s": "items_per_second"}

SUFFIX = re.compile(r"^(iterations|repeats|min_time|threads|process_time|manual_time|real_time)(:.*)?$")

USAGE = "expected --smoke, --filter=REGEX, --output=DIR or --build-dir=DIR"


def fail_usage(flag, expected):
    print(f"hockney bench: {flag}: {expected}", file=sys.stderr)
    sys.exit(2)


def parse_args(argv):
    opts = {"smoke": False, "filter": None, "output": "bench-output", "build_dir": "build"}
    for a in argv:
        if a == "--smoke":
            opts["smoke"] = True
        elif a.startswith("--filter="):
            text = a[len("--filter="):]
            try:
                re.compile(text)
            except re.error as e:
                fail_usage("--filter", f"expected a regular expression, got '{text}' ({e})")
            if not text:
                fail_usage("--filter", "expected a regular expression, got ''")
            opts["filter"] = text
        elif a.startswith("--output="):
            if not a[len("--output="):]:
                fail_usage("--output", "expected a directory, got ''")
            opts["output"] = a[len("--output="):]
        elif a.startswith("--build-dir="):
            opts["build_dir"] = a[len("--build-dir="):]
        else:
            flag = a.split("=", 1)[0]
            fail_usage(flag, f"unknown flag; {USAGE}")
    return opts


def split_name(name):
    """'BM_X/4/20000/manual_time' -> ('BM_X/4/20000', '4/20000')."""
    parts = [p for p in name.split("/") if not SUFFIX.match(p)]
    return "/".join(parts), "/".join(parts[1:])


def program_env(smoke):
    env = dict(os.environ)
    if smoke:
        env["HOCKNEY_BENCH_SMOKE"] = "1"
    return env


def list_benchmarks(program, smoke):
    out = subprocess.run([program, "--benchmark_list_tests=true"], env=program_env(smoke),
                         capture_output=True, text=True, check=False)
    return [line.strip() for line in out.stdout.splitlines() if line.strip()]


def baselines_of(names):
    """The baseline names (of `names` as a whole program's list) that each figure pairs with."""
    patterns = [f["baseline"] for f in FIGURES] + [SCALE_BASELINE]
    return [n for n in names if any(re.fullmatch(p, split_name(n)[0]) for p in patterns)]


def selection(names, regex):
    """The names a --filter selects, with the baselines they need, as a Google Benchmark filter."""
    chosen = [n for n in names if re.search(regex, n)]
    if not chosen:
        return None
    chosen += [b for b in baselines_of(names) if b not in chosen]
    return "^(" + "|".join(regex_literal(n) for n in chosen) + ")$"


def regex_literal(text):
    """`text` as a regex Google Benchmark compiles (POSIX extended or C++
    std::regex): only the metacharacters escaped, since both reject Python's
    escapes of '-' or ':'."""
    return re.sub(r"([.^$|()\[\]{}*+?\\])", r"\\\1", text)


def run_program(program, opts, out_dir):
    name = os.path.basename(program)
    json_path = os.path.join(out_dir, name + ".json")
    args = [program, f"--benchmark_out={json_path}", "--benchmark_out_format=json"]
    if opts["smoke"]:
        args.append("--benchmark_min_time=0.01")
    if opts["filter"]:
        flt = selection(list_benchmarks(program, opts["smoke"]), opts["filter"])
        if flt is None:
            return None
        args.append(f"--benchmark_filter={flt}")
    if os.path.exists(json_path):
        os.remove(json_path)  # a failed run must not leave the last run's figures behind
    print(f"== {name}", file=sys.stderr, flush=True)
    start = time.monotonic()
    # The console report and Google Benchmark's context lines go to NAME.txt;
    # progress lines on stderr (a long packet run's, "progress: ...") are
    # shown as they come.
    with open(os.path.join(out_dir, name + ".txt"), "w") as console:
        proc = subprocess.Popen(args, env=program_env(opts["smoke"]), stdout=console, stderr=subprocess.PIPE,
                                text=True)
        for line in proc.stderr:
            console.write(line)
            if line.startswith("progress: "):
                print("   " + line[len("progress: "):], end="", file=sys.stderr, flush=True)
        rc = proc.wait()
    if rc != 0:
        print(f"   {name} exited with status {rc}; its output: {out_dir}/{name}.txt", file=sys.stderr)
    wall = time.monotonic() - start
    data = load_json(json_path) if rc == 0 else None
    return {"program": name, "exit_status": rc, "wall_s": wall, "data": data}


def load_json(path):
    try:
        with open(path) as f:
            data = json.load(f)
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or "benchmarks" not in data or "context" not in data:
        return None
    return data


def counter(bench, metric):
    for key in (metric, FALLBACK.get(metric)):
        if key and isinstance(bench.get(key), (int, float)):
            return float(bench[key])
    return None


def find_baseline(benchmarks, pattern, args, program):
    """A baseline is measured by the same program as its figure (same process,
    minutes apart at most)."""
    candidates = [b for b in benchmarks
                  if b["program"] == program and re.fullmatch(pattern, split_name(b["name"])[0])]
    for b in candidates:
        if split_name(b["name"])[1] == args:
            return b
    return candidates[0] if candidates else None


def ratio(value, base):
    if value is None or base is None or base == 0:
        return None
    return value / base


def pair_rows(benchmarks):
    rows = []
    for fig in FIGURES:
        for b in benchmarks:
            short, args = split_name(b["name"])
            if not re.fullmatch(fig["figure"], short):
                continue
            base = find_baseline(benchmarks, fig["baseline"], args, b["program"])
            for metric, base_metric in fig["metrics"].items():
                value = counter(b, metric)
                base_value = counter(base, base_metric) if base and base_metric else None
                rows.append({"figure": short, "metric": metric, "value": value,
                             "baseline": split_name(base["name"])[0] if base else None,
                             "baseline_value": base_value, "ratio": ratio(value, base_value),
                             "error": b.get("error_message")})
    return rows


def with_chain_baseline(benchmarks, pattern):
    """(benchmark, its short name, the program's one-chain baseline or None)
    for each benchmark whose short name matches `pattern`."""
    for b in benchmarks:
        short, _ = split_name(b["name"])
        if re.fullmatch(pattern, short):
            yield b, short, find_baseline(benchmarks, SCALE_BASELINE, "", b["program"])


def scale_rows(benchmarks):
    rows = []
    for b, short, base in with_chain_baseline(benchmarks, SCALE):
        base_ns = counter(base, "ns_per_hop") if base else None
        base_events = counter(base, "events_per_hop") if base else None
        base_hops = counter(base, "hops_per_s") if base else None
        data_hops_s = counter(b, "data_hops_per_s")
        wall, case_wall = counter(b, "wall_s"), counter(b, "case_wall_s")
        ns = counter(b, "ns_per_hop")
        ev = counter(b, "events_per_data_hop")
        rows.append({"case": short[len("BM_Scale/"):], "finished": counter(b, "finished"),
                     "killed": counter(b, "killed"), "fraction_done": counter(b, "fraction_done"), "data_hops": counter(b, "data_hops"), "wall_s": counter(b, "wall_s"),
                     "sim_s": counter(b, "sim_s"), "events_per_data_hop": ev,
                     "p2p_events_per_hop": base_events, "ns_per_hop": ns, "p2p_ns_per_hop": base_ns,
                     "ns_per_hop_ratio": ratio(ns, base_ns),
                     # issue 9's end-to-end goal: payload hops/s over ns-3 point-to-point hops/s (goal >= 2)
                     "data_hops_per_s": data_hops_s, "p2p_hops_per_s": base_hops,
                     "data_hops_per_s_ratio": ratio(data_hops_s, base_hops),
                     # what the case spent outside the packet run (topology, schedule check, flow model)
                     "outside_run_s": case_wall - wall if wall is not None and case_wall is not None else None,
                     "peak_rss_bytes": counter(b, "peak_rss_bytes"),
                     "case_peak_rss_bytes": counter(b, "case_peak_rss_bytes"),
                     "error": b.get("error_message") or b.get("label") or None})
    return rows


def width_rows(benchmarks):
    """ns-3 point-to-point cost per hop against its device count, each row
    against the one-chain baseline of the same program."""
    rows = []
    for b, short, base in with_chain_baseline(benchmarks, SCALE_WIDE):
        ns, base_ns = counter(b, "ns_per_hop"), counter(base, "ns_per_hop") if base else None
        rows.append({"case": short, "devices": counter(b, "devices"), "ns_per_hop": ns,
                     "chain_ns_per_hop": base_ns, "ratio": ratio(ns, base_ns),
                     "error": b.get("error_message")})
    return rows


def fmt(v, kind=""):
    if v is None:
        return "-"
    if kind == "bytes":
        return f"{v / 1e6:.0f} MB"
    if kind == "ratio":
        return f"{v:.3g}x"
    if kind == "pct":
        return f"{100 * v:.0f} %"
    if abs(v) >= 1e4 or (v != 0 and abs(v) < 1e-2):
        return f"{v:.3e}"
    return f"{v:.4g}"


def print_table(headers, rows):
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(headers)] if rows else map(len, headers)
    widths = list(widths)
    line = "  ".join(h.ljust(w) for h, w in zip(headers, widths))
    print(line)
    print("  ".join("-" * w for w in widths))
    for r in rows:
        print("  ".join(c.ljust(w) for c, w in zip(r, widths)))


def report(pairs, scale, width=()):
    if pairs:
        print("\nFigures and their same-run baselines (ratio = figure / baseline: for */s above 1 is faster,")
        print("for ns_per_hop and events_per_hop above 1 is costlier)\n")
        print_table(["figure", "metric", "value", "baseline", "baseline value", "ratio"],
                    [[r["figure"], r["metric"], fmt(r["value"]), r["baseline"] or "-", fmt(r["baseline_value"]),
                      fmt(r["ratio"], "ratio")] for r in pairs])
    if scale:
        print("\nScale series: packet-level collectives (baseline: ns-3 point-to-point chain, same run)\n")
        print("(ns/hop counts data and control hops; data hops/s vs p2p is issue 9's goal, >= 2x;")
        print(" outside s = the case's wall time outside the packet run: topology, checks, flow model)\n")
        print_table(["case", "done", "wall_s", "outside s", "sim_s", "data hops", "events/hop", "p2p", "ns/hop", "p2p",
                     "ratio", "data hops/s", "vs p2p", "RSS run", "RSS case"],
                    [[r["case"], "yes" if r["finished"] == 1 else "killed" if r["killed"] == 1 else
                      "stopped " + fmt(r["fraction_done"], "pct"),
                      fmt(r["wall_s"]), fmt(r["outside_run_s"]), fmt(r["sim_s"]), fmt(r["data_hops"]),
                      fmt(r["events_per_data_hop"]), fmt(r["p2p_events_per_hop"]), fmt(r["ns_per_hop"]),
                      fmt(r["p2p_ns_per_hop"]), fmt(r["ns_per_hop_ratio"], "ratio"), fmt(r["data_hops_per_s"]),
                      fmt(r["data_hops_per_s_ratio"], "ratio"), fmt(r["peak_rss_bytes"], "bytes"),
                      fmt(r["case_peak_rss_bytes"], "bytes")] for r in scale])
    if width:
        print("\nns-3 point-to-point against its size: chains side by side, all forwarding at once")
        print("(ratio = ns/hop / the one-chain baseline's: what a larger working set costs ns-3's own device)\n")
        print_table(["case", "devices", "ns/hop", "one chain", "ratio"],
                    [[r["case"], fmt(r["devices"]), fmt(r["ns_per_hop"]), fmt(r["chain_ns_per_hop"]),
                      fmt(r["ratio"], "ratio")] for r in width])


def check_json(paths):
    """The smoke tests' check: each file is Google Benchmark JSON with at least
    one benchmark and none that stopped with an error (no timing is looked at)."""
    status = 0
    for p in paths:
        data = load_json(p)
        if data is None or not data["benchmarks"]:
            print(f"bench-run: {p}: not a Google Benchmark JSON file with benchmarks", file=sys.stderr)
            status = 1
            continue
        for b in data["benchmarks"]:
            if b.get("error_occurred"):
                print(f"bench-run: {p}: {b.get('name')}: {b.get('error_message')}", file=sys.stderr)
                status = 1
    return status


def main(argv):
    if argv and argv[0] == "--check-json":
        return check_json(argv[1:])
    opts = parse_args(argv)
    bin_dir = os.path.join(opts["build_dir"], "bin")
    programs = sorted(os.path.join(bin_dir, f) for f in os.listdir(bin_dir)) if os.path.isdir(bin_dir) else []
    programs = [p for p in programs if os.path.basename(p).startswith("bench-") and os.access(p, os.X_OK)]
    if not programs:
        print(f"hockney bench: no bench-* programs in {bin_dir} (build first)", file=sys.stderr)
        return 1
    os.makedirs(opts["output"], exist_ok=True)
    runs = [r for r in (run_program(p, opts, opts["output"]) for p in programs) if r is not None]
    if not runs:
        fail_usage("--filter", f"expected a regular expression matching a benchmark, got '{opts['filter']}'")
    benchmarks = []
    programs_ctx = {}
    context = None
    for r in runs:
        data = r["data"] or {}
        programs_ctx[r["program"]] = {"exit_status": r["exit_status"], "wall_s": r["wall_s"],
                                      "context": data.get("context")}
        context = context or data.get("context")
        for b in data.get("benchmarks", []):
            if b.get("run_type", "iteration") == "iteration":
                benchmarks.append(dict(b, program=r["program"]))
    pairs = pair_rows(benchmarks)
    scale = scale_rows(benchmarks)
    width = width_rows(benchmarks)
    merged = {
        "context": dict(context or {}, hockney={
            "date": datetime.datetime.now().astimezone().isoformat(timespec="seconds"),
            "smoke": opts["smoke"], "filter": opts["filter"], "programs": programs_ctx,
            "note": "shared machine: compare ratios to same-run baselines, not absolute figures"}),
        "benchmarks": benchmarks,
        "pairs": pairs,
        "scale": scale,
        "baseline_width": width,
    }
    out_path = os.path.join(opts["output"], "bench.json")
    with open(out_path, "w") as f:
        json.dump(merged, f, indent=1)
    report(pairs, scale, width)
    failed = [r["program"] for r in runs if r["exit_status"] != 0 or r["data"] is None]
    print(f"\n{out_path}: {len(benchmarks)} benchmarks from {len(runs)} programs")
    if failed:
        print(f"hockney bench: failed: {', '.join(failed)} (console output in {opts['output']}/*.txt)",
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
