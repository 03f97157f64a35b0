#!/usr/bin/env python3
"""Speed-up over cuSPARSE (or over Kokkos Kernels on host runs) per matrix,
from a perf_spgemm JSON file: an SVG bar chart and a Markdown table.

  python3 docs/spgemm_plot.py docs/data/spgemm_cuda_h100.json docs/spgemm_cuda_h100.svg
No plotting library needed (plain SVG)."""
import json
import math
import sys


def main(src, dst):
    data = json.load(open(src))
    recs = data["records"] if isinstance(data, dict) else data
    by = {}
    for r in recs:
        by.setdefault(r["matrix"], {})[r["impl"]] = r
    base = "cusparse-spgemm" if any("cusparse-spgemm" in v for v in by.values()) else "kk-spgemm-kk"
    impls = [i for i in ["spk", "spk-onecall", "spk-numeric-reuse", "kk-spgemm-kk",
                         "cusparse-spgemm"] if i != base and any(i in v for v in by.values())]
    rows = []
    for m, v in by.items():
        if base not in v:
            continue
        rows.append((m, {i: v[base]["ms"] / v[i]["ms"] for i in impls if i in v}, v))
    # Markdown table.
    print(f"| matrix | products | nnz(C) | " + " | ".join(f"{i} ms" for i in impls + [base]) +
          " | " + " | ".join(f"{i} / {base}" for i in impls) + " | spk peak MB | " + base +
          " peak MB |")
    print("|" + "---|" * (3 + 2 * len(impls) + 3))
    for m, sp, v in rows:
        ms = " | ".join(f"{v[i]['ms']:.3f}" if i in v else "-" for i in impls + [base])
        x = " | ".join(f"{sp[i]:.2f}x" if i in sp else "-" for i in impls)
        pk = lambda i: f"{v[i].get('peak_bytes', -1) / 2**20:.1f}" if i in v else "-"
        print(f"| {m} | {int(v['spk']['products'])} | {int(v['spk']['nnz_c'])} | {ms} | {x} | "
              f"{pk('spk')} | {pk(base)} |")
    for i in impls:
        vals = [sp[i] for _, sp, _ in rows if i in sp]
        if vals:
            g = math.exp(sum(math.log(x) for x in vals) / len(vals))
            print(f"\ngeometric mean {i} / {base}: {g:.2f}x over {len(vals)} matrices, "
                  f"min {min(vals):.2f}x, max {max(vals):.2f}x")
    # SVG: one group of bars per matrix, log2 scale from 1/8x to 16x.
    W, rowh, left = 900, 22, 230
    colors = {"spk": "#1f77b4", "spk-onecall": "#6a51a3", "spk-numeric-reuse": "#9ecae1", "kk-spgemm-kk": "#ff7f0e",
              "cusparse-spgemm": "#2ca02c"}
    H = 60 + len(rows) * rowh * len(impls) + 40
    lo, hi = -3, 4
    xs = lambda s: left + (math.log2(max(min(s, 2**hi), 2**lo)) - lo) / (hi - lo) * (W - left - 20)
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" '
           f'font-family="sans-serif" font-size="11">',
           f'<text x="10" y="20" font-size="14">SpGEMM C = A*A, speed-up over {base} '
           f'(total time incl. allocation, log scale)</text>']
    for e in range(lo, hi + 1):
        x = xs(2**e)
        out.append(f'<line x1="{x:.1f}" y1="35" x2="{x:.1f}" y2="{H - 30}" stroke="#ccc"/>')
        out.append(f'<text x="{x:.1f}" y="{H - 15}" text-anchor="middle">{2**e:g}x</text>')
    y = 45
    for m, sp, _ in rows:
        out.append(f'<text x="{left - 6}" y="{y + rowh * len(impls) / 2 + 4:.0f}" '
                   f'text-anchor="end">{m[:34]}</text>')
        for i in impls:
            if i in sp:
                x0, x1 = xs(1), xs(sp[i])
                out.append(f'<rect x="{min(x0, x1):.1f}" y="{y + 2}" width="{abs(x1 - x0):.1f}" '
                           f'height="{rowh - 5}" fill="{colors.get(i, "#777")}"/>')
                out.append(f'<text x="{max(x0, x1) + 3:.1f}" y="{y + rowh - 7}">{sp[i]:.2f}</text>')
            y += rowh
        out.append(f'<line x1="{left}" y1="{y}" x2="{W - 20}" y2="{y}" stroke="#eee"/>')
    lx = left
    for i in impls:
        out.append(f'<rect x="{lx}" y="26" width="10" height="10" fill="{colors.get(i, "#777")}"/>')
        out.append(f'<text x="{lx + 14}" y="35">{i}</text>')
        lx += 150
    out.append("</svg>")
    open(dst, "w").write("\n".join(out))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
