# Ratios of alone.sh's runs: per matrix, Kokkos Kernels' median over the rounds
# against spk's (sorted and unsorted one call), and their geometric means.
import sys, glob, statistics, collections, math
out = sys.argv[1]
ms = collections.defaultdict(list)
for f in glob.glob(f"{out}/*.log"):
    for l in open(f, errors="replace"):
        p = l.split()
        if len(p) > 7 and p[0] == "spgemm" and "openmp" in p:
            i = p.index("openmp")
            ms[(" ".join(p[1:i - 1]), p[i - 1])].append(float(p[i + 3]))
mats = list(dict.fromkeys(m for m, _ in sorted(ms)))
impls = ["spk-onecall", "spk-onecall-unsorted"]
print(f"{'matrix':28s} {'KK ms':>8s} " + " ".join(f"{i:>22s}" for i in impls))
g = {i: [] for i in impls}
for m in mats:
    if (m, "kk-spgemm-kk") not in ms: continue
    k = statistics.median(ms[(m, "kk-spgemm-kk")])
    line = f"{m:28s} {k:8.3f} "
    for i in impls:
        t = statistics.median(ms[(m, i)]); g[i].append(k / t)
        line += f"{t:10.3f} ms {k / t:8.2f}x "
    print(line)
print(f"{'geometric mean':28s} {'':8s} " +
      " ".join(f"{math.exp(sum(map(math.log, g[i])) / len(g[i])):21.3f}x" for i in impls))
