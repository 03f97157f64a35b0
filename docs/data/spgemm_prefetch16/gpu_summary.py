"""The device runs of this folder against cuSPARSE: per suite run, the geometric mean
of cuSPARSE's total over spk's (two-phase `spk` record, allocations included) and the
lowest matrix; pooled: per matrix, cuSPARSE's median over every run against spk's
median; peak device memory, spk's largest over cuSPARSE's smallest per matrix.
   python3 gpu_summary.py DIR   (DIR: tests.tgz, suite.tgz and g3.tgz unpacked)"""
import glob, json, math, statistics, sys

d = sys.argv[1]
ms, peak = {}, {}
for f in sorted(glob.glob(f"{d}/*.json")):
    if f.endswith("check.json"):
        continue
    rs = {}
    for r in json.load(open(f))["records"]:
        if r["impl"] in ("spk", "cusparse-spgemm"):
            ms.setdefault((r["matrix"], r["impl"]), []).append(r["ms"])
            peak.setdefault((r["matrix"], r["impl"]), []).append(r.get("peak_bytes", 0))
            rs.setdefault(r["matrix"], {})[r["impl"]] = r["ms"]
    x = [v["cusparse-spgemm"] / v["spk"] for v in rs.values() if len(v) == 2]
    print("%-18s geomean %.3f  lowest %.2f  matrices %d" %
          (f.split("/")[-1], math.exp(sum(map(math.log, x)) / len(x)), min(x), len(x)))
mats = sorted({m for m, _ in ms})
print("\n%-32s %10s %10s %7s %12s" % ("matrix", "cuSPARSE", "spk", "ratio", "peak spk/cus"))
ratios, worst_mem = [], 0
for m in mats:
    if (m, "spk") not in ms or (m, "cusparse-spgemm") not in ms:
        continue
    c, s = statistics.median(ms[(m, "cusparse-spgemm")]), statistics.median(ms[(m, "spk")])
    mem = max(peak[(m, "spk")]) / max(1, min(peak[(m, "cusparse-spgemm")]))
    worst_mem = max(worst_mem, mem)
    ratios.append((c / s, m))
    print("%-32s %10.3f %10.3f %7.2f %12.2f" % (m, c, s, c / s, mem))
g = math.exp(sum(math.log(r) for r, _ in ratios) / len(ratios))
print("\npooled geometric mean %.3f over %d matrices, lowest %s %.2f; peak memory spk/cuSPARSE at most %.2f"
      % (g, len(ratios), min(ratios)[1], min(ratios)[0], worst_mem))
