#!/usr/bin/env python3
"""Summary of perf driver JSON files (the format of perf_tests/spk_perf_common.hpp).

For each driver it compares spk's default (the implementation a user gets:
JSON "default_impl", e.g. spk-onecall for SpGEMM, spk-auto for SpMV)
with each alternative (JSON "alternatives": Kokkos Kernels, the serial
baseline, cuSPARSE default and pooled on CUDA).  Per matrix it prints the
ratio alternative time / default time (above 1: spk's default is faster),
skipped and failed rows with their reason; then per alternative the
geometric mean, the matrix count and the worst matrix.  A second view,
labelled "best of spk variants", takes the fastest spk record per matrix.
With --plots DIR it writes one plot per driver: the ratio per matrix,
sorted, one line per alternative.

    scripts/perf_summary.py [--plots DIR] results/perf_spgemm.json ...
"""
import argparse
import json
import math
import os
from collections import defaultdict

DEFAULTS = {"spgemm": "spk-onecall", "spmv": "spk-auto"}


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs))


def gib(b):
    return f"{b / 2**30:.2f} GiB"


def ok(r):
    return r.get("status", "ok") == "ok" and r.get("ms") is not None and r["ms"] > 0


def summarize(path, data, plots_dir):
    """Prints one driver's table and returns the plot file written, if any."""
    records = data["records"]
    driver = os.path.splitext(os.path.basename(path))[0]
    print(f"## {driver}: {data.get('command', '')}")
    for note in data.get("notes", []):
        if not note.startswith("wrote"):
            print(f"#   {note}")
    groups, order = defaultdict(list), []
    for r in records:
        key = (r["op"], r["matrix"])
        if key not in groups:
            order.append(key)
        groups[key].append(r)
    default_impl = data.get("default_impl")
    alternatives = list(data.get("alternatives", []))
    present = {r["impl"] for r in records}
    alternatives = [a for a in alternatives if a in present]
    ratios = defaultdict(list)  # alternative -> [(ratio, op matrix)]
    best_ratios = defaultdict(list)
    unusual = []
    head = f"{'op':<12} {'matrix':<30} {'default':<14} {'ms':>9}  " + "  ".join(
        f"{a[:16]:>16}" for a in alternatives)
    print(f"\nspk's default against each alternative: alternative ms / default ms (>1: spk faster)")
    print(head)
    for key in order:
        recs = groups[key]
        op, matrix = key
        dflt_name = default_impl or DEFAULTS.get(op, "spk")
        by_impl = {r["impl"]: r for r in recs}
        for r in recs:
            if not ok(r):
                unusual.append(f"{op:<12} {matrix[:30]:<30} {r['impl']:<22} "
                               f"{r.get('status', '?')}: {r.get('message', '')}")
        d = by_impl.get(dflt_name)
        spk_ok = [r for r in recs if r["impl"].startswith("spk") and ok(r)]
        best = min(spk_ok, key=lambda r: r["ms"]) if spk_ok else None
        cells = []
        for a in alternatives:
            alt = by_impl.get(a)
            if alt is None:
                cells.append(f"{'':>16}")
            elif not ok(alt):
                cells.append(f"{alt.get('status', '?'):>16}")
            elif d is None or not ok(d):
                cells.append(f"{'-':>16}")
            else:
                x = alt["ms"] / d["ms"]
                ratios[a].append((x, f"{op} {matrix}"))
                cells.append(f"{x:>15.2f}x")
            if alt is not None and ok(alt) and best is not None:
                best_ratios[a].append((alt["ms"] / best["ms"], f"{op} {matrix}"))
        dms = f"{d['ms']:9.3f}" if d is not None and ok(d) else f"{(d or {}).get('status', 'absent'):>9}"
        print(f"{op:<12} {matrix[:30]:<30} {dflt_name[:14]:<14} {dms}  " + "  ".join(cells))
    if unusual:
        print("\nNot measured (skipped: would not fit the memory or the offset type; failed: threw):")
        for u in unusual:
            print(f"  {u}")
    print(f"\n{driver}: spk's default against each alternative (geometric mean over matrices)")
    for a in alternatives:
        xs = ratios.get(a)
        if not xs:
            continue
        worst = min(xs)
        print(f"  vs {a:<24} {geomean([x for x, _ in xs]):6.2f}x over {len(xs):3d} matrices; "
              f"worst {worst[0]:.2f}x ({worst[1]})")
    if best_ratios:
        print(f"{driver}: best of spk variants (fastest spk record per matrix, NOT the default)")
        for a in alternatives:
            xs = best_ratios.get(a)
            if xs:
                worst = min(xs)
                print(f"  vs {a:<24} {geomean([x for x, _ in xs]):6.2f}x over {len(xs):3d} "
                      f"matrices; worst {worst[0]:.2f}x ({worst[1]})")
    counts = defaultdict(int)
    for r in records:
        counts[r.get("status", "ok")] += 1
    peak = data.get("peak_rss_bytes")
    print(f"{driver}: records " + ", ".join(f"{n} {s}" for s, n in sorted(counts.items())) +
          (f"; peak RSS {gib(peak)}" if peak else "") +
          (f"; elapsed {data['elapsed_s']:.0f} s" if data.get("elapsed_s") else ""))
    devs = [v for r in records for k, v in r.items() if k == "peak_device_bytes" and v]
    if devs and not str(records[0].get("space", "")).startswith(("serial", "openmp")):
        print(f"{driver}: peak device memory (Kokkos + cuSPARSE allocations) {gib(max(devs))}")
    print()
    if not plots_dir or not any(ratios.values()):
        return None
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("(matplotlib missing: no plot)")
        return None
    fig, ax = plt.subplots(figsize=(9, 5))
    for a in alternatives:
        xs = sorted(x for x, _ in ratios.get(a, []))
        if xs:
            ax.plot(range(1, len(xs) + 1), xs, marker=".", label=f"vs {a} (geomean {geomean(xs):.2f}x)")
    ax.axhline(1.0, color="grey", linewidth=0.8)
    ax.set_yscale("log")
    ax.set_xlabel("matrix (sorted by ratio)")
    ax.set_ylabel(f"alternative time / {default_impl or 'spk'} time")
    space = next((r["space"] for r in records if r.get("space", "").startswith(("cuda", "openmp", "serial"))), "")
    ax.set_title(f"{driver} ({space}, corpus {data.get('corpus', '?')}): >1 = spk's default faster")
    ax.legend(fontsize=8)
    ax.grid(True, which="both", alpha=0.3)
    out = os.path.join(plots_dir, f"{driver}_ratio.png")
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--plots", metavar="DIR", help="write DIR/<driver>_ratio.png")
    ap.add_argument("json", nargs="+")
    a = ap.parse_args()
    written, peaks = [], []
    for path in a.json:
        try:
            with open(path) as f:
                data = json.load(f)
        except (OSError, ValueError) as e:
            print(f"## {path}: cannot read ({e})\n")
            continue
        written.append(path)
        if data.get("peak_rss_bytes"):
            peaks.append(data["peak_rss_bytes"])
        plot = summarize(path, data, a.plots)
        if plot:
            written.append(plot)
    if peaks:
        print(f"Peak RSS of the drivers: {gib(max(peaks))} (the largest of {len(peaks)})")
    print("Written:")
    for w in written:
        print(f"  {w}")


if __name__ == "__main__":
    main()
