#!/usr/bin/python3
"""waves.py FILE DIMS... - checks the PE curves of `render --dims ... --format
ansi` without colour (NO_COLOR): each strip, one per dimension and marked
with its own glyph, crosses its zero line as often as numpy's
sin/cos(p / 10000^(2i/d)) over the same positions (d = 64), within one.
Prints the counts; exit status 1 on a mismatch or a missing strip."""
import sys
import numpy as np

MARK = "*o+x"
lines = open(sys.argv[1], encoding="utf-8").read().split("\n")
dims = [int(a) for a in sys.argv[2:]]
d, P = 64, 100
axis = next(i for i, l in enumerate(lines) if "└" in l)
x0 = lines[axis].index("└") + 1
# the strips: their "+1┤" and "−1┤" lines
tops = [i for i, l in enumerate(lines) if l.startswith("+1┤")]
bots = [i for i, l in enumerate(lines) if l.startswith("−1┤")]
if len(tops) != len(dims) or len(bots) != len(dims):
    print("expected %d strips, found %d" % (len(dims), len(tops)))
    sys.exit(1)
pw = len(lines[axis]) - x0
bad = 0
for k, dim in enumerate(dims):
    rows = lines[tops[k]:bots[k] + 1]
    zero = next(j for j, l in enumerate(rows) if l.startswith(" 0┤"))
    signs = []
    for x in range(x0, x0 + pw - 12):      # the strip's name sits at the right end
        ys = [j for j, l in enumerate(rows) if x < len(l) and l[x] == MARK[k]]
        if ys and ys[0] != zero:
            signs.append(1 if ys[0] < zero else -1)
    drawn = sum(1 for a, b in zip(signs, signs[1:]) if a != b)
    ps = np.linspace(0, (P - 1) * (pw - 13) / (pw - 1), 4000)   # the same span
    fs = ps / 10000 ** ((dim & ~1) / d)
    vs = np.cos(fs) if dim % 2 else np.sin(fs)
    sg = np.sign(vs)
    sg = sg[sg != 0]                      # sin(0) = 0 is no crossing
    ref = int(np.sum(sg[1:] != sg[:-1]))
    print("dim %d: %d zero crossings drawn, numpy %d" % (dim, drawn, ref))
    if abs(drawn - ref) > 1:
        bad = 1
sys.exit(bad)
