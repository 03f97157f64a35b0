#!/usr/bin/env python3
"""Bar charts (SVG, no dependencies) of the perf_dist JSON files in
docs/data/mpi: time per operation by implementation and rank count.
   python3 docs/plot_mpi.py            -> docs/data/mpi/*.svg
"""
import glob
import json
import os

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "mpi")


def bars(title, rows, path, unit="ms"):
    """rows: list of (label, value)."""
    if not rows:
        return
    w, bh, left = 760, 22, 330
    h = 40 + bh * len(rows) + 20
    vmax = max(v for _, v in rows) or 1
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" '
           f'font-family="sans-serif" font-size="12">',
           f'<text x="10" y="20" font-size="14" font-weight="bold">{title}</text>']
    for i, (label, v) in enumerate(rows):
        y = 35 + i * bh
        bw = (w - left - 90) * v / vmax
        colour = "#4878a8" if label.startswith("spk") else "#c8783c"
        out.append(f'<text x="10" y="{y + 15}">{label}</text>')
        out.append(f'<rect x="{left}" y="{y + 3}" width="{bw:.1f}" height="{bh - 6}" fill="{colour}"/>')
        out.append(f'<text x="{left + bw + 5:.1f}" y="{y + 15}">{v:.3g} {unit}</text>')
    out.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(out))
    print("wrote", path)


def main():
    records = []
    for p in sorted(glob.glob(os.path.join(HERE, "*.json"))):
        with open(p) as f:
            for r in json.load(f)["records"]:
                r["file"] = os.path.basename(p)
                records.append(r)
    groups = {}
    for r in records:
        key = (r["file"].split("_np")[0], r["op"], r["matrix"])
        groups.setdefault(key, []).append(r)
    for (prefix, op, matrix), rs in sorted(groups.items()):
        rs.sort(key=lambda r: (r["impl"].split()[0], r.get("ranks", 0)))
        rows = [(f'{r["impl"]} {r["space"]}', r["ms"]) for r in rs]
        safe = "".join(c if c.isalnum() else "_" for c in f"{prefix}_{op}_{matrix}")
        bars(f"{op} {matrix} ({prefix})", rows, os.path.join(HERE, safe + ".svg"))


if __name__ == "__main__":
    main()
