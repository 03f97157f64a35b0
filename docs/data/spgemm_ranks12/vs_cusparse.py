"""cuSPARSE against spk with cuSPARSE's noise pooled: per matrix, the median
cuSPARSE total over every suite run of the call (base and new), over the
median spk total of each binary; geometric mean and lowest matrix.
   python3 vs_cusparse.py DIR"""
import glob, json, math, statistics, sys

d = sys.argv[1]
cus, spk = {}, {"base": {}, "new": {}}
for f in sorted(glob.glob(f"{d}/base*.json") + glob.glob(f"{d}/new*.json")):
    which = "base" if f.split("/")[-1].startswith("base") else "new"
    for r in json.load(open(f))["records"]:
        if r["impl"] == "cusparse-spgemm":
            cus.setdefault(r["matrix"], []).append(r["ms"])
        elif r["impl"] == "spk":
            spk[which].setdefault(r["matrix"], []).append(r["ms"])
for which, t in spk.items():
    rs = {m: statistics.median(cus[m]) / statistics.median(v) for m, v in t.items() if m in cus}
    low = min(rs, key=rs.get)
    print("%-4s geomean %.3f over %d matrices, lowest %s %.2f" %
          (which, math.exp(sum(map(math.log, rs.values())) / len(rs)), len(rs), low, rs[low]))
