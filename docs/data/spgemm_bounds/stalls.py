"""Hottest SASS lines of an ncu source export (--page source --csv --print-source sass),
with their two main stall reasons: python3 stalls.py ncu/dense_rmat18_source.csv.gz [N]"""
import csv, gzip, sys

rows = list(csv.reader(gzip.open(sys.argv[1], "rt")))
hi = next(i for i, r in enumerate(rows) if "Source" in r)
hdr, body = rows[hi], rows[hi + 1:]
si = hdr.index("Warp Stall Sampling (All Samples)")
stalls = [i for i, h in enumerate(hdr) if h.startswith("stall_") and "Not Issued" not in h]
tot = sum(float(r[si] or 0) for r in body)
n = int(sys.argv[2]) if len(sys.argv) > 2 else 12
for r in sorted(body, key=lambda r: -float(r[si] or 0))[:n]:
    top = sorted(((float(r[k] or 0), hdr[k]) for k in stalls), reverse=True)[:2]
    print(f"{100 * float(r[si] or 0) / tot:5.1f}%  {r[1].strip()[:50]:50s} {[t[1] for t in top]}")
