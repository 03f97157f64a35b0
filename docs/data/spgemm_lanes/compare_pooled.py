# spk against both cuSPARSE records of one perf_spgemm JSON:
#   python3 compare_pooled.py spgemm_cuda_h100.json
import json, math, sys
d = json.load(open(sys.argv[1]))['records']
r = {(x['matrix'].split('/')[-1], x['impl']): x for x in d}
L1, L2, L3 = [], [], []
print(f"{'matrix':24s} {'spk':>8s} {'reuse':>8s} {'cusp':>8s} {'cusp-pool':>9s}  spk/cusp spk/cusp-pooled  peak spk/cusp MB")
for (m, i), x in r.items():
    if i != 'spk':
        continue
    c, p, n = r[(m, 'cusparse-spgemm')], r[(m, 'cusparse-spgemm-pooled')], r[(m, 'spk-numeric-reuse')]
    L1.append(math.log(c['ms'] / x['ms'])); L2.append(math.log(p['ms'] / x['ms'])); L3.append(math.log(c['ms'] / n['ms']))
    print(f"{m[:24]:24s} {x['ms']:8.3f} {n['ms']:8.3f} {c['ms']:8.3f} {p['ms']:9.3f}  {c['ms']/x['ms']:6.2f}x {p['ms']/x['ms']:6.2f}x  {x['peak_bytes']/1e6:8.1f} {c['peak_bytes']/1e6:8.1f}")
g = lambda L: math.exp(sum(L) / len(L))
print(f"geomean over {len(L1)}: spk vs cusparse-spgemm {g(L1):.2f}x (min {math.exp(min(L1)):.2f}x), vs cusparse-spgemm-pooled {g(L2):.2f}x (min {math.exp(min(L2)):.2f}x); numeric reuse vs cusparse-spgemm {g(L3):.2f}x")
