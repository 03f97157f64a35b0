#!/usr/bin/env python3
"""Strong-scaling plot (SVG, no dependencies) of the distributed SpGEMM runs
packed by perf_tests/gpu/spgemm_scaling.sh (TAG_json.tgz files).
   python3 docs/plot_scaling.py OUT.svg TITLE A.tgz [B.tgz ...]
   python3 docs/plot_scaling.py OUT.svg TITLE --var BIN=LABEL[,BIN=LABEL] A.tgz [...]
One line per matrix: time of the one-call distributed product against the
number of GPUs (log-log), its numeric-only reuse dashed, and single-GPU
cuSPARSE as a cross at 1 GPU.  With --var the archives are those of the
device scripts' STEP=var (BIN_MATRIX_npN_ROUND.json): one line per binary
and matrix, the median over rounds at each rank count."""
import io
import json
import math
import statistics
import sys
import tarfile

COLOURS = ["#4878a8", "#c8783c", "#58a058", "#a04848", "#8060b0", "#707070"]


def load(paths):
    runs = {}
    for p in paths:
        with tarfile.open(p) as t:
            files = {m.name.lstrip("./"): m for m in t.getmembers() if m.isfile()}
            for name, m in sorted(files.items()):
                recs = json.load(io.TextIOWrapper(t.extractfile(m)))["records"]
                key = (p, name.split("_")[1].split(".")[0])  # m<i>
                e = runs.setdefault(key, {"dist": {}, "cusparse": None, "name": None})
                for r in recs:
                    if name.startswith("dist_"):
                        e["name"] = r["matrix"].replace("^2", "")
                        e["dist"][int(r["ranks"])] = (r["ms"], r["numeric_ms"])
                    elif r["impl"].startswith("cusparse"):
                        e["cusparse"] = r["ms"]
    return [e for e in runs.values() if e["dist"]]


def load_var(paths, labels):
    """STEP=var archives: {bin: label} -> one run per (bin, matrix)."""
    times = {}
    for p in paths:
        with tarfile.open(p) as t:
            for m in t.getmembers():
                name = m.name.lstrip("./")
                if not (m.isfile() and name.endswith(".json")):
                    continue
                parts = name[:-5].split("_")
                if len(parts) < 4 or parts[0] not in labels or not parts[-2].startswith("np"):
                    continue
                for r in json.load(io.TextIOWrapper(t.extractfile(m)))["records"]:
                    if r.get("op") == "dist_spgemm":
                        key = (parts[0], r["matrix"].replace("^2", "").replace("local:", ""))
                        times.setdefault(key, {}).setdefault(int(r["ranks"]), []).append(
                            (r["ms"], r["numeric_ms"]))
    return [{"name": f"{mat} ({labels[b]})", "cusparse": None,
             "dist": {g: (statistics.median(a for a, _ in v), statistics.median(n for _, n in v))
                      for g, v in d.items()}}
            for (b, mat), d in sorted(times.items(), key=lambda kv: (kv[0][1], kv[0][0]))]


def main():
    out, title, paths = sys.argv[1], sys.argv[2], sys.argv[3:]
    if paths and paths[0] == "--var":
        labels = dict(x.split("=", 1) for x in paths[1].split(","))
        runs = load_var(paths[2:], labels)
    else:
        runs = load(paths)
    w, h, l, r, t, b = 760, 460, 70, 200, 40, 50
    ts = [v for e in runs for p in e["dist"].values() for v in p] + [
        e["cusparse"] for e in runs if e["cusparse"]]
    lo, hi = math.log10(min(ts)) - 0.1, math.log10(max(ts)) + 0.1
    x = lambda g: l + (w - l - r) * math.log2(g) / 3
    y = lambda ms: t + (h - t - b) * (hi - math.log10(ms)) / (hi - lo)
    s = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" '
         f'font-family="sans-serif" font-size="12">',
         f'<text x="10" y="22" font-size="14" font-weight="bold">{title}</text>']
    for g in (1, 2, 4, 8):
        s.append(f'<line x1="{x(g)}" y1="{t}" x2="{x(g)}" y2="{h - b}" stroke="#ddd"/>')
        s.append(f'<text x="{x(g) - 4}" y="{h - b + 16}">{g}</text>')
    for e10 in range(math.floor(lo), math.ceil(hi) + 1):
        for m in (1, 2, 5):
            v = m * 10 ** e10
            if lo <= math.log10(v) <= hi:
                s.append(f'<line x1="{l}" y1="{y(v):.1f}" x2="{w - r}" y2="{y(v):.1f}" stroke="#eee"/>')
                s.append(f'<text x="{l - 50}" y="{y(v) + 4:.1f}">{v:g} ms</text>')
    s.append(f'<text x="{(w - r) / 2}" y="{h - 12}">GPUs (one rank each)</text>')
    for k, e in enumerate(runs):
        c = COLOURS[k % len(COLOURS)]
        gs = sorted(e["dist"])
        for idx, dash in ((0, ""), (1, ' stroke-dasharray="4 3"')):
            pts = " ".join(f"{x(g):.1f},{y(e['dist'][g][idx]):.1f}" for g in gs)
            s.append(f'<polyline points="{pts}" fill="none" stroke="{c}" stroke-width="2"{dash}/>')
        if e["cusparse"]:
            cx, cy = x(1), y(e["cusparse"])
            s.append(f'<path d="M{cx - 5},{cy - 5}L{cx + 5},{cy + 5}M{cx - 5},{cy + 5}L{cx + 5},{cy - 5}" '
                     f'stroke="{c}" stroke-width="2"/>')
        s.append(f'<text x="{w - r + 10}" y="{t + 16 + 18 * k}" fill="{c}">{e["name"]}</text>')
    n = len(runs)
    s.append(f'<text x="{w - r + 10}" y="{t + 30 + 18 * n}">solid: one-call product</text>')
    s.append(f'<text x="{w - r + 10}" y="{t + 48 + 18 * n}">dashed: numeric reuse</text>')
    if any(e["cusparse"] for e in runs):
        s.append(f'<text x="{w - r + 10}" y="{t + 66 + 18 * n}">x: cuSPARSE, 1 GPU</text>')
    s.append("</svg>")
    with open(out, "w") as f:
        f.write("\n".join(s))
    print("wrote", out)


if __name__ == "__main__":
    main()
