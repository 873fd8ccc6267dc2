"""views_test.py - the numbers the views of issue 16 print, against the
numpy reference (tests/golden/reference.py), not against attnscope's trace.

* `render --view lines`: the bar list beside the keys is the selected
  head's weights of query 0, at two decimals (|diff| <= 0.005 + 1e-6), for
  encoder self-, decoder self- and cross-attention and every head; the last
  line names the key with the largest weight and its value (4 significant
  digits).
* `render --view model`: every tile's title gives the head's mean row
  entropy in bits at two decimals (rows that are fully masked left out).

Prints TAP; exits non-zero on any failure.  Environment: ATTNSCOPE.
"""

import math
import os
import re
import shutil
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True
sys.path.insert(0, HERE)
import make_model  # noqa: E402
import reference  # noqa: E402

SENTENCE = "The cat sees my dog."
TARGET = "o gato vê meu cão ."
N = 0
FAILED = 0


def report(ok, name, diag=""):
    global N, FAILED
    N += 1
    print("%s %d - %s" % ("ok" if ok else "not ok", N, name))
    if not ok:
        FAILED += 1
        for d in diag.splitlines():
            print("# " + d)
    sys.stdout.flush()


def run(binary, args):
    env = dict(os.environ, LANGUAGE="", LANG="C.UTF-8", LC_ALL="C.UTF-8")
    p = subprocess.run([binary] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       timeout=120, env=env)
    return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")


def lines_view(binary, yaml_path, ref, stage, heads):
    w = ref[stage]   # [h, nq, nk]
    for h in range(heads):
        rc, out, err = run(binary, ["render", "--model", yaml_path, "--target", TARGET,
                                    "--view", "lines", "--stage", stage, "--head", str(h),
                                    "--width", "110", "--height", "30", "--lang", "en",
                                    SENTENCE])
        if rc != 0:
            report(False, "lines %s head %d runs" % (stage, h), err)
            continue
        text = out.split("\n")
        nk = w.shape[2]
        # keys from line 3, pitch lines apart: 26 lines of body, at most 4 a token
        pitch = min(4, 25 // (max(w.shape[1], nk) - 1))
        got, worst, diag = 0, 0.0, []
        for j in range(nk):
            y = 3 + pitch * j
            line = text[y].rstrip() if y < len(text) else ""
            tail = line.rsplit(" ", 1)[-1]
            if tail == "masked":
                ok = w[h, 0, j] == 0
                x = 0.0
            else:
                try:
                    x = float(tail.replace("−", "-"))
                except ValueError:
                    diag.append("key %d: no number at the end of %r" % (j, line))
                    continue
            got += 1
            d = abs(x - w[h, 0, j])
            if d > worst:
                worst = d
            if d > 0.005 + 1e-6:
                diag.append("key %d: shown %s, reference %.6f" % (j, tail, w[h, 0, j]))
        m = re.search(r"most weight on “.*” \((\d+)\) = (\S+)", out)
        best = int(np.argmax(w[h, 0]))
        ok_best = m is not None and int(m.group(1)) == best and \
            abs(float(m.group(2)) - w[h, 0, best]) <= 5e-4 * max(1.0, w[h, 0, best])
        if not ok_best:
            diag.append("last line %r, reference key %d = %.6f" %
                        (m.group(0) if m else None, best, w[h, 0, best]))
        report(got == nk and not diag,
               "lines %s head %d: %d bars = the reference weights of query 0 (worst %.4f)"
               % (stage, h, got, worst), "\n".join(diag + text))


def entropy(w):
    """Mean row entropy in bits of [nq, nk] weights, fully masked rows left out."""
    hs = []
    for row in w:
        if row.sum() <= 0.5:
            continue
        p = row[row > 0]
        hs.append(float(-(p * np.log2(p)).sum()))
    return sum(hs) / len(hs) if hs else 0.0


def model_view(binary, yaml_path, ref, kind, layers, heads):
    rc, out, err = run(binary, ["render", "--model", yaml_path, "--target", TARGET,
                                "--view", "model", "--stage", "%s.0.%s.weights" % kind,
                                "--width", "160", "--height", "60", "--lang", "en", SENTENCE])
    if rc != 0:
        report(False, "model %s runs" % (kind,), err)
        return
    # tiles are titled "h<head> <entropy>" within the row of "L<layer>"
    found, diag = 0, []
    layer = -1
    for line in out.split("\n"):
        m = re.match(r"\s*L(\d+)\b", line)
        if m:
            layer = int(m.group(1))
        for hm in re.finditer(r"h(\d+) (\d+\.\d\d)", line):
            if layer < 0:
                continue
            h = int(hm.group(1))
            e = entropy(ref["%s.%d.%s.weights" % (kind[0], layer, kind[1])][h])
            found += 1
            if abs(float(hm.group(2)) - e) > 0.005 + 1e-6:
                diag.append("layer %d head %d: shown %s, reference %.4f" %
                            (layer, h, hm.group(2), e))
    report(found == layers * heads and not diag,
           "model view %s.*.%s: %d tile entropies = the reference (of %d)"
           % (kind[0], kind[1], found, layers * heads), "\n".join(diag) + "\n" + out)


def main():
    binary = os.environ.get("ATTNSCOPE")
    if not binary:
        print("1..0 # SKIP ATTNSCOPE not set")
        return 0
    work = tempfile.mkdtemp(prefix="attnscope-views-")
    try:
        cfg = make_model.PRESETS["a"]
        yaml_path, model = make_model.make_model(work, cfg)
        ref, info = reference.forward(model, SENTENCE, target=TARGET)
        heads = cfg["heads"]
        for stage in ("encoder.0.self_attn.weights", "encoder.1.self_attn.weights",
                      "decoder.0.self_attn.weights", "decoder.1.cross_attn.weights"):
            lines_view(binary, yaml_path, ref, stage, heads)
        if os.environ.get("VIEWS_TEST_MODEL", "1") == "1":
            model_view(binary, yaml_path, ref, ("encoder", "self_attn"), cfg["encoder_layers"], heads)
            model_view(binary, yaml_path, ref, ("decoder", "self_attn"), cfg["decoder_layers"], heads)
            model_view(binary, yaml_path, ref, ("decoder", "cross_attn"), cfg["decoder_layers"], heads)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print("1..%d" % N)
    return 1 if FAILED else 0


if __name__ == "__main__":
    sys.exit(main())
