#!/usr/bin/env python3
"""Speed-up over one rank of perf_dist runs: one line per (op, matrix).

    scripts/plot_dist_scaling.py OUT.svg RUN.json...

Each JSON is one perf_dist run (any rank count); its first record gives the
op, the matrix, the rank count and the time.  The plot shows time(1 rank) /
time(N ranks) against N, with the ideal line.
"""
import json
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    series = defaultdict(dict)
    for path in sys.argv[2:]:
        rec = json.load(open(path))["records"][0]
        series[(rec["op"], rec["matrix"])][int(rec["ranks"])] = float(rec["ms"])
    fig, ax = plt.subplots(figsize=(6, 4))
    top = 1
    for (op, matrix), times in sorted(series.items()):
        if 1 not in times:
            continue
        ranks = sorted(times)
        top = max(top, ranks[-1])
        ax.plot(ranks, [times[1] / times[r] for r in ranks], marker="o",
                label=f"{op} {matrix}")
    ax.plot([1, top], [1, top], "k--", linewidth=0.8, label="ideal")
    ax.set_xlabel("ranks (one GPU each)")
    ax.set_ylabel("speed-up over one rank")
    ax.legend(fontsize=7)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(sys.argv[1])


if __name__ == "__main__":
    main()
