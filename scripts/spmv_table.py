#!/usr/bin/env python3
"""Markdown table of perf_spmv JSON: ms per matrix and implementation, and
the geometric-mean speedup of spk-auto over each baseline.
Usage: spmv_table.py results.json"""
import json
import math
import sys

IMPLS = ["spk-auto", "spk-scalar", "spk-vector", "spk-merge_path", "kokkoskernels",
         "kokkoskernels-native", "cusparse-alg1", "cusparse-alg2", "serial-loop"]

data = json.load(open(sys.argv[1]))
recs = data["records"]
for r in recs:  # older results name spk's automatic choice "spk-automatic"
    r["impl"] = r["impl"].replace("spk-automatic", "spk-auto")
mats = []
for r in recs:
    if r["matrix"] not in mats:
        mats.append(r["matrix"])
impls = [i for i in IMPLS if any(r["impl"] == i for r in recs)]
ms = {(r["matrix"], r["impl"]): r for r in recs}
print("| matrix | rows | nnz | auto → | " + " | ".join(impls) + " |")
print("|---|---:|---:|---|" + "---:|" * len(impls))
for m in mats:
    a = ms.get((m, "spk-auto"), {})
    row = "| %s | %d | %d | %s |" % (m, a.get("rows", 0), a.get("nnz", 0), a.get("launch", ""))
    for i in impls:
        r = ms.get((m, i))
        row += " %.4f (%.0f%%) |" % (r["ms"], 100 * r["ref_frac"]) if r else " - |"
    print(row)
print()
for base in impls[1:]:
    ratios = [ms[(m, base)]["ms"] / ms[(m, "spk-auto")]["ms"] for m in mats
              if (m, base) in ms and (m, "spk-auto") in ms]
    if ratios:
        g = math.exp(sum(math.log(x) for x in ratios) / len(ratios))
        print("- spk-auto vs %s: geometric-mean speedup %.2f× over %d matrices "
              "(min %.2f×, max %.2f×)" % (base, g, len(ratios), min(ratios), max(ratios)))
