import json,sys,math
def load(f):
    d=json.load(open(f)); r={}
    for x in d['records']:
        if x['impl']=='spk': r[x['matrix']]=x['ms']
    return r
fs=sys.argv[1:]
R=[load(f) for f in fs]
ms=[m for m in R[0] if all(m in r for r in R)]
print('%-28s'%'matrix'+''.join('%12s'%f.split('.')[0] for f in fs))
lg=[0]*len(fs)
for m in ms:
    print('%-28s'%m[:28]+''.join('%12.3f'%r[m] for r in R)+'   %.3f'%(R[0][m]/R[-1][m]))
    for i,r in enumerate(R): lg[i]+=math.log(R[0][m]/r[m])
print('geomean speedup vs first:',' '.join('%.3f'%math.exp(l/len(ms)) for l in lg))
