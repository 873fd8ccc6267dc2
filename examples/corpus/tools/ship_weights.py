#!/usr/bin/python3
"""ship_weights.py - fit a trained checkpoint with snapshots into the
repository's size budget.

    examples/corpus/tools/ship_weights.py --keep K [--f16] [--q8] MODEL.yaml WEIGHTS.safetensors

`attnscope train --snapshots N` keeps N log-spaced F16 copies of the weights
(snapshot.STEP.*) beside the trained F32 tensors.  For en-pt-small (1.69 M
parameters) eight of them are 27 MB, over the 20 MB a shipped model may
take.  This keeps K of them: step 0 (the random initialisation) and the
others evenly spread over the list, leaving out the last one (it is the
trained weights again, in F16) -- unless the trained weights are the mean
of the last checkpoints (train --average: the metadata's attnscope.average),
where the last snapshot is that step's own weights and is always kept; --f16 also stores the trained tensors as
F16 (attnscope converts F16 to F32 on load); --q8 stores each snapshot's
matrices as I8 with one F32 scale a row (NAME_scale, shape [rows, 1]: the
row's largest magnitude / 127, values rounded to nearest; attnscope
multiplies them back on load), half the size of F16, so that all eight
fit.  With K at least the number of snapshots every one is kept, the last
too.  The file and the YAML's
`snapshots:` list are rewritten in place, deterministically: the same
input gives the same bytes.  Only the Python standard library."""
import argparse, json, os, re, struct, sys
from array import array


def read_st(path):
    with open(path, "rb") as f:
        blob = f.read()
    if len(blob) < 8:
        raise ValueError("%s: too short for a safetensors file" % path)
    (hlen,) = struct.unpack("<Q", blob[:8])
    if 8 + hlen > len(blob):
        raise ValueError("%s: header length %d beyond the file" % (path, hlen))
    header = json.loads(blob[8:8 + hlen].decode("utf-8"))
    return header, blob[8 + hlen:]


def f32_to_f16(raw):
    a = array("f")
    a.frombytes(raw)
    if sys.byteorder != "little":
        a.byteswap()
    return struct.pack("<%de" % len(a), *a)


def to_floats(raw, dtype):
    a = array("f")
    if dtype == "F32":
        a.frombytes(raw)
        if sys.byteorder != "little":
            a.byteswap()
        return a
    if dtype == "F16":
        return array("f", struct.unpack("<%de" % (len(raw) // 2), raw))
    raise ValueError("--q8: snapshot tensors must be F32 or F16, not %s" % dtype)


def q8_rows(raw, dtype, shape):
    """I8 values and F32 scales [rows, 1] of a matrix, one scale a row."""
    x = to_floats(raw, dtype)
    rows = shape[0]
    cols = len(x) // rows if rows else 0
    q, sc = array("b"), array("f")
    for r in range(rows):
        row = x[r * cols:(r + 1) * cols]
        m = max((abs(v) for v in row), default=0.0)
        s = m / 127.0 if m > 0 else 0.0
        sc.append(s)
        # the scale as stored (F32) is the one the values are rounded by
        s = sc[-1]
        q.extend(max(-127, min(127, round(v / s))) if s else 0 for v in row)
    if sys.byteorder != "little":
        sc.byteswap()
    return q.tobytes(), sc.tobytes()


def snap_step(name):
    m = re.match(r"^snapshot\.(\d+)\.", name)
    return int(m.group(1)) if m else None


def evenly(pool, keep):
    """keep of pool: its first and the others evenly over it."""
    if keep >= len(pool):
        return list(pool)
    if keep <= 1:
        return pool[:1]
    return sorted({pool[round(i * (len(pool) - 1) / (keep - 1))] for i in range(keep)})


def choose(steps, keep, averaged=False):
    """all of them, or step 0 and keep-1 more, evenly over the list without
    its last; averaged: the last is one of the keep, the others chosen so
    from the rest."""
    if keep >= len(steps):
        return list(steps)
    if averaged and len(steps) > 1 and keep >= 2:
        return evenly(steps[:-1], keep - 1) + [steps[-1]]
    return evenly(steps[:-1] if len(steps) > 1 else steps, keep)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--keep", type=int, required=True)
    ap.add_argument("--f16", action="store_true")
    ap.add_argument("--q8", action="store_true")
    ap.add_argument("yaml")
    ap.add_argument("weights")
    a = ap.parse_args()
    try:
        header, data = read_st(a.weights)
    except (OSError, ValueError) as e:
        print("ship_weights.py: %s" % e, file=sys.stderr)
        return 1
    meta = header.pop("__metadata__", None)
    steps = sorted({s for s in (snap_step(n) for n in header) if s is not None})
    kept = set(choose(steps, a.keep, bool(meta and meta.get("attnscope.average"))))
    out_h, parts, off = {}, [], 0
    for name in sorted(header, key=lambda n: header[n]["data_offsets"][0]):
        t = header[name]
        s = snap_step(name)
        if s is not None and s not in kept:
            continue
        b, e = t["data_offsets"]
        raw = data[b:e]
        dtype = t["dtype"]
        if s is None and a.f16 and dtype == "F32":
            raw, dtype = f32_to_f16(raw), "F16"
        scales = None
        if s is not None and a.q8 and len(t["shape"]) == 2:
            raw, scales = q8_rows(raw, dtype, t["shape"])
            dtype = "I8"
        out_h[name] = {"dtype": dtype, "shape": t["shape"],
                       "data_offsets": [off, off + len(raw)]}
        parts.append(raw)
        off += len(raw)
        if scales is not None:
            out_h[name + "_scale"] = {"dtype": "F32", "shape": [t["shape"][0], 1],
                                      "data_offsets": [off, off + len(scales)]}
            parts.append(scales)
            off += len(scales)
    if meta is not None:
        out_h = dict([("__metadata__", meta)] + list(out_h.items()))
    hdr = json.dumps(out_h, separators=(",", ":")).encode("utf-8")
    hdr += b" " * (-len(hdr) % 8)
    tmp = a.weights + ".tmp"
    with open(tmp, "wb") as f:
        f.write(struct.pack("<Q", len(hdr)))
        f.write(hdr)
        for p in parts:
            f.write(p)
    # the YAML's snapshots: list keeps the same steps
    text = open(a.yaml, encoding="utf-8").read()
    lines, out, in_snap = text.split("\n"), [], False
    for l in lines:
        if l.startswith("# ship_weights.py:"):
            continue
        if l.startswith("snapshots:"):
            in_snap = True
            out.append("# ship_weights.py: %d of the %d snapshots train kept%s%s"
                       % (len(kept), len(steps), ", trained tensors as F16" if a.f16 else "",
                          ", snapshot matrices as I8 with a scale a row" if a.q8 else ""))
        elif in_snap and not l.startswith("  "):
            in_snap = False
        m = re.match(r"^  - \{step: (\d+),", l)
        if in_snap and m and int(m.group(1)) not in kept:
            continue
        out.append(l)
    os.replace(tmp, a.weights)
    with open(a.yaml + ".tmp", "w", encoding="utf-8") as f:
        f.write("\n".join(out))
    os.replace(a.yaml + ".tmp", a.yaml)
    print("ship_weights.py: kept snapshots %s of %s%s%s; %s: %.1f MB"
          % (", ".join(map(str, sorted(kept))), ", ".join(map(str, steps)),
             "; trained tensors as F16" if a.f16 else "",
             "; snapshot matrices as I8" if a.q8 else "", a.weights,
             os.path.getsize(a.weights) / 1e6))
    return 0


if __name__ == "__main__":
    sys.exit(main())
