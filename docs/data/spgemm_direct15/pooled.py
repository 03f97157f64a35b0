# KK's median over every run of every binary in OUT (one session, same machine) against each
# binary's own median per matrix: the ratio without KK's run-to-run noise.
import sys, glob, statistics, collections, math, os
out = sys.argv[1]; bins = sys.argv[2:]
impl = os.environ.get("IMPL", "spk-onecall")
def rows(f):
    for l in open(f, errors="replace"):
        p = l.split()
        if len(p) > 7 and p[0] == "spgemm" and "openmp" in p:
            i = p.index("openmp"); yield " ".join(p[1:i-1]), p[i-1], float(p[i+3])
kk = collections.defaultdict(list); own = {b: collections.defaultdict(list) for b in bins}
for f in glob.glob(f"{out}/*.log"):
    b = os.path.basename(f).rsplit("_", 1)[0]
    for m, im, ms in rows(f):
        if im == "kk-spgemm-kk": kk[m].append(ms)
        if b in own and im == impl: own[b][m].append(ms)
print(f"{'matrix':28s} {'KK':>8s} " + " ".join(f"{b:>8s}" for b in bins))
g = {b: [] for b in bins}
for m in kk:
    k = statistics.median(kk[m]); line = f"{m:28s} {k:8.3f} "
    for b in bins:
        r = k / statistics.median(own[b][m]); g[b].append(r); line += f"{r:8.2f} "
    print(line)
print(f"{'geometric mean':28s} {'':8s} " + " ".join(f"{math.exp(sum(map(math.log, g[b]))/len(g[b])):8.3f}" for b in bins))
