"""Per matrix, the median over runs of Kokkos Kernels' total time over spk's
one call (spk-onecall), for each binary; then the geometric mean of those
medians.  Usage: python3 compare.py DIR NAME [NAME ...] (files DIR/NAME_<run>.json).
IMPL=spk-onecall-unsorted in the environment compares that record instead."""
import glob
import json
import math
import os
import statistics
import sys


def load(path):
    by = {}
    for rec in json.load(open(path))["records"]:
        by.setdefault(rec["matrix"], {})[rec["impl"]] = rec
    return by


IMPL = os.environ.get("IMPL", "spk-onecall")


def main(folder, names):
    runs = {n: [load(f) for f in sorted(glob.glob(f"{folder}/{n}_[0-9].json"))] for n in names}
    matrices = list(runs[names[0]][0])
    print(f"{'matrix':26s}" + "".join(f"{n:>9s}" for n in names) + f"   (KK ms / {IMPL} ms)")
    logs = {n: [] for n in names}
    for m in matrices:
        row = []
        for n in names:
            r = statistics.median(
                run[m]["kk-spgemm-kk"]["ms"] / run[m][IMPL]["ms"] for run in runs[n])
            logs[n].append(math.log(r))
            row.append(r)
        print(f"{m[:26]:26s}" + "".join(f"{r:9.2f}" for r in row))
    print(f"{'geometric mean':26s}" +
          "".join(f"{math.exp(sum(logs[n]) / len(logs[n])):9.2f}" for n in names))
    for n in names:
        each = [math.exp(sum(math.log(run[m]["kk-spgemm-kk"]["ms"] / run[m][IMPL]["ms"])
                             for m in matrices) / len(matrices)) for run in runs[n]]
        print(f"{n}: geometric mean of each run " + " ".join(f"{g:.2f}" for g in each))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
