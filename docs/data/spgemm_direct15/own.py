# spk's own median ms per matrix for an impl, binary A vs B (ratio B/A), ignoring KK.
import json, sys, glob, statistics, re, collections
out, a, b = sys.argv[1:4]
impl = sys.argv[4] if len(sys.argv) > 4 else "spk-onecall"
def load(name):
    d = collections.defaultdict(list)
    for f in sorted(glob.glob(f"{out}/{name}_*.log")):
        for l in open(f, errors="replace"):
            p = l.split()
            if len(p) > 7 and p[0] == "spgemm":
                # matrix names may contain spaces: impl is the field before 'openmp'
                i = p.index("openmp")
                m = " ".join(p[1:i-1]); im = p[i-1]
                if im == impl: d[m].append(float(p[i+3]))
    return d
A, B = load(a), load(b)
lr = []
for m in A:
    ma, mb = statistics.median(A[m]), statistics.median(B[m])
    lr.append(mb / ma)
    print(f"{m:28s} {ma:9.3f} {mb:9.3f} {mb/ma:6.3f}")
import math
print("geomean time ratio", round(math.exp(sum(map(math.log, lr)) / len(lr)), 4))
