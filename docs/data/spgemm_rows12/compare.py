"""Per matrix, the fastest spk total (ms) of each variant's suite runs
(PREFIX*.json), its ratio to the first variant, and the geometric means.
   python3 compare.py DIR PREFIX [PREFIX ...]"""
import glob, json, math, sys

d, prefixes = sys.argv[1], sys.argv[2:]
best = {}
for p in prefixes:
    for f in sorted(glob.glob(f"{d}/{p}*.json")):
        for r in json.load(open(f))["records"]:
            if r["impl"] == "spk":
                k = best.setdefault(p, {})
                k[r["matrix"]] = min(k.get(r["matrix"], 1e30), r["ms"])
base = best[prefixes[0]]
print("%-28s" % "matrix", " ".join("%9s" % p for p in prefixes), "  ratios to", prefixes[0])
logs = {p: 0.0 for p in prefixes}
for m in base:
    print("%-28s" % m[:28], " ".join("%9.3f" % best[p][m] for p in prefixes),
          " ".join("%6.3f" % (best[p][m] / base[m]) for p in prefixes))
    for p in prefixes:
        logs[p] += math.log(best[p][m] / base[m])
print("geomean ratio", " ".join("%s %.4f" % (p, math.exp(logs[p] / len(base))) for p in prefixes))
