"""Per matrix and rank count: perf_dist's one-call time (ms) of base and new in each round,
and new/base of the medians.  python3 summary.py runs.tgz"""
import collections, json, statistics, sys, tarfile

t = tarfile.open(sys.argv[1] if len(sys.argv) > 1 else "runs.tgz")
ms = collections.defaultdict(list)
for m in t.getmembers():
    if m.name.endswith(".json"):
        name = m.name.split("/")[-1][:-5]  # <bin>_<matrix>_np<P>_<round>
        b, rest = name.split("_", 1)
        key = rest.rsplit("_", 1)[0]
        for r in json.load(t.extractfile(m))["records"]:
            if r["op"] == "dist_spgemm":
                ms[(key, b)].append(r["ms"])
for key in sorted({k for k, _ in ms}):
    base, new = ms[(key, "base")], ms[(key, "new")]
    print(f"{key:24s} base {' '.join(f'{x:6.2f}' for x in base)}  new {' '.join(f'{x:6.2f}' for x in new)}"
          f"  new/base {statistics.median(new) / statistics.median(base):.3f}")
