#!/usr/bin/env python3
"""Plot perf_spmv JSON: achieved GB/s per matrix and implementation, with the
reference bandwidth (device-to-device copy / streaming read) measured in the
same run.  Usage: plot_spmv.py results.json out.png [title] [impl,impl,...]
(the implementations to draw; by default the CSR ones of IMPLS)."""
import json
import math
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

IMPLS = ["spk-auto", "spk-scalar", "spk-vector", "spk-merge_path", "kokkoskernels",
         "kokkoskernels-native", "cusparse-alg1", "cusparse-alg2"]


def main():
    src, out = sys.argv[1], sys.argv[2]
    title = sys.argv[3] if len(sys.argv) > 3 else src
    wanted = sys.argv[4].split(",") if len(sys.argv) > 4 else IMPLS
    data = json.load(open(src))
    recs = data["records"]
    for r in recs:  # older results name spk's automatic choice "spk-automatic"
        r["impl"] = r["impl"].replace("spk-automatic", "spk-auto")
    matrices = []
    for r in recs:
        if r["matrix"] not in matrices:
            matrices.append(r["matrix"])
    impls = [i for i in wanted if any(r["impl"] == i for r in recs)]
    gbps = {(r["matrix"], r["impl"]): r["gbps"] for r in recs if r.get("status", "ok") == "ok"}
    fig, ax = plt.subplots(figsize=(max(8, 0.6 * len(matrices)), 5.5))
    width = 0.8 / len(impls)
    for j, impl in enumerate(impls):
        xs = [i + j * width for i in range(len(matrices))]
        ys = [gbps.get((m, impl), 0) for m in matrices]
        ax.bar(xs, ys, width, label=impl)
    # The reference bandwidth measured in the same run (copy on a GPU,
    # streaming read on a CPU): gbps / ref_frac of any record.
    if "reference" in data:
        ref, kind = data["reference"]["gbps"], data["reference"]["kind"]
    else:
        r0 = next(r for r in recs if r.get("ref_frac"))
        ref = r0["gbps"] / r0["ref_frac"]
        kind = "copy" if r0["space"] == "cuda" else "streaming read"
    ax.axhline(ref, color="k", linestyle="--", linewidth=1, label="%s %.0f GB/s" % (kind, ref))
    ax.set_xticks([i + 0.4 - width / 2 for i in range(len(matrices))])
    ax.set_xticklabels(matrices, rotation=35, ha="right", fontsize=8)
    ax.set_ylabel("GB/s (counted bytes / median time), log scale")
    ax.set_yscale("log")
    ax.set_title(title, fontsize=10)
    ax.legend(fontsize=7, ncol=3)
    fig.tight_layout()
    fig.savefig(out, dpi=120)
    # Geometric-mean speedups of spk-auto, for the caption.
    for base in ["cusparse-alg1", "cusparse-alg2", "kokkoskernels", "kokkoskernels-native"]:
        ratios = [gbps[(m, "spk-auto")] / gbps[(m, base)] for m in matrices
                  if (m, base) in gbps and (m, "spk-auto") in gbps]
        if ratios:
            g = math.exp(sum(math.log(x) for x in ratios) / len(ratios))
            print("spk-auto vs %s: geomean %.3fx over %d matrices" % (base, g, len(ratios)))


if __name__ == "__main__":
    main()
