#!/usr/bin/env python3
"""Side-by-side summary of perf driver JSON files (spk_perf_common.hpp format).

For every (op, matrix) it prints each implementation's median time and the
speedup of the best spk variant over every other implementation, then the
geometric mean of those speedups per op and competitor.

    scripts/perf_summary.py results/perf_convert.json results/perf_spmv.json ...
"""
import json
import math
import sys
from collections import defaultdict


def main(paths):
    ratios = defaultdict(list)  # (op, other impl) -> [spk best / other]
    for path in paths:
        with open(path) as f:
            data = json.load(f)
        print(f"## {path}\n#   {data.get('command', '')}")
        for note in data.get("notes", []):
            print(f"#   {note}")
        groups = defaultdict(list)
        order = []
        for r in data["records"]:
            key = (r["op"], r["matrix"])
            if key not in groups:
                order.append(key)
            groups[key].append(r)
        print(f"{'op':<14} {'matrix':<26} {'impl (ms, GB/s or GFLOP/s)':<60} best spk vs others")
        for key in order:
            recs = groups[key]
            spk = [r for r in recs if r["impl"].startswith("spk")]
            best = min(spk, key=lambda r: r["ms"]) if spk else None
            cells = []
            for r in recs:
                rate = r.get("gflops") if r.get("gflops") is not None else r.get("gbps")
                cells.append(f"{r['impl']} {r['ms']:.3g}" + (f"/{rate:.3g}" if rate is not None else ""))
            vs = []
            if best:
                for r in recs:
                    if r["impl"].startswith("spk") or r["ms"] <= 0:
                        continue
                    x = r["ms"] / best["ms"]
                    ratios[(key[0], r["impl"], r["space"])].append(x)
                    vs.append(f"{x:.2f}x {r['impl']}")
            print(f"{key[0]:<14} {key[1][:26]:<26} {'; '.join(cells):<60} {', '.join(vs)}")
        print()
    if ratios:
        print("Geometric mean speedup of the best spk variant:")
        for (op, impl, space), xs in sorted(ratios.items()):
            g = math.exp(sum(math.log(x) for x in xs) / len(xs))
            print(f"  {op:<14} vs {impl:<22} ({space}): {g:6.2f}x over {len(xs)} matrices "
                  f"(min {min(xs):.2f}x)")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
