import json,sys,math
def load(p):
    d=json.load(open(p))['records']; r={}
    for x in d: r[(x['matrix'].split('/')[-1],x['impl'])]=x
    return r
files=sys.argv[1:]
R=[load(f) for f in files]
mats=[]
for (m,i) in R[0]:
    if m not in mats: mats.append(m)
logs=[[] for _ in files]
for m in mats:
    c=R[0].get((m,'cusparse-spgemm'))
    if not c: continue
    line=f"{m[:26]:26s} cusp {c['ms']:8.3f}"
    for k,r in enumerate(R):
        s=r.get((m,'spk')); n=r.get((m,'spk-numeric-reuse'))
        if s:
            cm=r[(m,'cusparse-spgemm')]['ms']
            line+=f" | {s['ms']:8.3f} ({cm/s['ms']:.2f}x) sym {s['symbolic_ms']:.3f} num {n['ms']:.3f}"
            logs[k].append(math.log(cm/s['ms']))
    print(line)
for k,l in enumerate(logs): print(files[k], 'geomean', round(math.exp(sum(l)/len(l)),3), len(l), 'below1.5', sum(1 for x in l if x<math.log(1.5)))
