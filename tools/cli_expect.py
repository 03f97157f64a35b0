#!/usr/bin/env python3
"""Checks a Matrix Market file the spk tool wrote against values computed
here, by a reader and products independent of spk's (the CLI tests use it).

    cli_expect.py OUT TOL EXPR [NAME=FILE ...]

Reads OUT and every FILE (coordinate or array; real, integer, pattern or
complex; general, symmetric, skew-symmetric or hermitian; .gz or not) as a
dense matrix of Python complex numbers, binds each to NAME, evaluates EXPR
(with mul(A, B), T(A) = Aᵀ and H(A) = Aᴴ) and expects OUT to have its shape
and every entry within TOL · max(1, |expected|) of it.  Exits 1 naming the
first entry that differs.
"""
import gzip
import sys


def load(path):
    opener = gzip.open if open(path, "rb").read(2) == b"\x1f\x8b" else open
    with opener(path, "rt") as f:
        lines = [l.split() for l in f]
    banner = [t.lower() for t in lines[0]]
    fmt, field, sym = banner[2], banner[3], banner[4]
    data = [l for l in lines[1:] if l and not l[0].startswith("%")]
    size = [int(t) for t in data[0]]
    m, n = size[0], size[1]
    a = [[0j] * n for _ in range(m)]

    def value(tokens):
        if field == "pattern":
            return 1 + 0j
        if field == "complex":
            return complex(float(tokens[0]), float(tokens[1]))
        return complex(float(tokens[0]))

    if fmt == "coordinate":
        entries = [(int(t[0]) - 1, int(t[1]) - 1, value(t[2:])) for t in data[1:]]
    else:
        cells = [(i, j) for j in range(n) for i in range(m)
                 if sym == "general" or i > j or (i == j and sym != "skew-symmetric")]
        entries = [(i, j, value(t)) for (i, j), t in zip(cells, data[1:])]
    for i, j, v in entries:
        a[i][j] += v
        if sym != "general" and i != j:
            a[j][i] += {"symmetric": v, "skew-symmetric": -v,
                        "hermitian": v.conjugate()}[sym]
    return a


def mul(a, b):
    return [[sum(a[i][k] * b[k][j] for k in range(len(b))) for j in range(len(b[0]))]
            for i in range(len(a))]


def T(a):
    return [list(r) for r in zip(*a)]


def H(a):
    return [[v.conjugate() for v in r] for r in zip(*a)]


def main():
    out, tol, expr = sys.argv[1], float(sys.argv[2]), sys.argv[3]
    names = {"mul": mul, "T": T, "H": H}
    for binding in sys.argv[4:]:
        name, path = binding.split("=", 1)
        names[name] = load(path)
    want = eval(expr, names)
    got = load(out)
    if len(got) != len(want) or len(got[0]) != len(want[0]):
        sys.exit(f"{out}: {len(got)} x {len(got[0])}, expected {len(want)} x {len(want[0])}")
    for i, (gr, wr) in enumerate(zip(got, want)):
        for j, (g, w) in enumerate(zip(gr, wr)):
            if not abs(g - w) <= tol * max(1.0, abs(w)):
                sys.exit(f"{out}: entry ({i + 1}, {j + 1}) is {g}, expected {w}")
    print(f"{out}: {len(got)} x {len(got[0])} as expected")


if __name__ == "__main__":
    main()
