"""seed_toy_test.py - the shipped models/seed-toy.yaml must reproduce the
self-attention lesson's own numpy output.

Runs the lesson's code (copied verbatim below: X, W_q, W_k, W_v and its
steps), then `$ATTNSCOPE dump --model $top_srcdir/models/seed-toy.yaml
"your cat is"`, and compares the dumped stages with the lesson's arrays to
1e-6.  Prints TAP; exits non-zero on any failure.
"""

import os
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True  # the source tree may be read-only
sys.path.insert(0, HERE)
import stio  # noqa: E402

TOL = 1e-6

# ------------------------------------------------ the lesson's code, verbatim
# Example input: 3 words, embedding size 4
X = np.array([
    [1.0, 0.0, 1.0, 0.0],   # word 1
    [0.0, 2.0, 0.0, 2.0],   # word 2
    [1.0, 1.0, 1.0, 1.0]    # word 3
])

# Weight matrices for queries, keys, values (embedding size 4 -> 4)
W_q = np.array([
    [0.1, 0.2, 0.0, 0.0],
    [0.0, 0.1, 0.3, 0.0],
    [0.1, 0.0, 0.0, 0.2],
    [0.0, 0.0, 0.2, 0.3]
])
W_k = np.array([
    [0.2, 0.0, 0.1, 0.0],
    [0.0, 0.1, 0.0, 0.3],
    [0.1, 0.0, 0.2, 0.0],
    [0.0, 0.2, 0.0, 0.1]
])
W_v = np.array([
    [0.0, 0.1, 0.0, 0.2],
    [0.2, 0.0, 0.2, 0.0],
    [0.0, 0.3, 0.1, 0.0],
    [0.1, 0.0, 0.0, 0.3]
])

# Compute queries, keys, values
Q = X @ W_q
K = X @ W_k
V = X @ W_v

scores = Q @ K.T

d_k = Q.shape[1]
scaled_scores = scores / np.sqrt(d_k)


# Softmax to get attention weights
def softmax(x):
    e_x = np.exp(x - np.max(x, axis=-1, keepdims=True))
    return e_x / np.sum(e_x, axis=-1, keepdims=True)


attention_weights = softmax(scaled_scores)

# Weighted sum of values
output = attention_weights @ V
# ------------------------------------------------ end of the lesson's code


class Tap:
    def __init__(self):
        self.n = 0
        self.failed = 0

    def report(self, ok, name, diag=""):
        self.n += 1
        print("%s %d - %s" % ("ok" if ok else "not ok", self.n, name))
        if not ok:
            self.failed += 1
            for d in diag.splitlines():
                print("# " + d)
        sys.stdout.flush()
        return ok


def check(tap, got, name, expected, what):
    label = "seed-toy/%s == %s" % (name, what)
    if name not in got:
        return tap.report(False, label, "stage %s missing from the dump" % name)
    g = np.asarray(got[name], dtype=np.float64)
    e = np.asarray(expected, dtype=np.float64)
    if g.shape != e.shape:
        return tap.report(False, label, "shape %s, expected %s" % (list(g.shape), list(e.shape)))
    diff = np.abs(g - e)
    diff[np.isnan(diff)] = np.inf
    if (diff > TOL).any():
        i = tuple(np.argwhere(diff > TOL)[0])
        return tap.report(False, label,
                          "first difference at %s: got %.9g, expected %.9g; max |diff| %.3g\n"
                          "got:\n%s\nexpected:\n%s"
                          % (list(i), g[i], e[i], diff.max(), g, e))
    return tap.report(True, label)


def _safe_stdout():
    try:
        sys.stdout.reconfigure(errors="backslashreplace")
    except AttributeError:
        pass


def main():
    _safe_stdout()
    tap = Tap()
    # sanity of the lesson itself
    tap.report(np.allclose(attention_weights.sum(axis=-1), 1.0),
               "lesson: attention weight rows sum to 1")

    binary = os.environ.get("ATTNSCOPE")
    top = os.environ.get("top_srcdir", os.path.join(HERE, "..", ".."))
    model = os.path.join(top, "models", "seed-toy.yaml")
    if not binary or not os.access(binary, os.X_OK):
        tap.report(False, "attnscope binary found", "ATTNSCOPE=%r is not an executable" % binary)
        print("1..%d" % tap.n)
        return 1
    with tempfile.TemporaryDirectory(prefix="attnscope-seed-") as tmp:
        out = os.path.join(tmp, "seed.safetensors")
        cmd = [binary, "dump", "--out", out, "--model", model, "your cat is"]
        try:
            p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60)
            rc, err = p.returncode, p.stderr.decode("utf-8", "replace")
        except (OSError, subprocess.TimeoutExpired) as e:
            rc, err = -1, str(e)
        if not tap.report(rc == 0 and os.path.exists(out), "seed-toy/dump runs",
                          "command: %s\nexit %s\n%s" % (" ".join(cmd), rc, err.strip())):
            print("1..%d" % tap.n)
            return 1
        got, meta = stio.read(out)

    ids = got.get("src.ids")
    tap.report(ids is not None and list(np.asarray(ids).ravel()) == [4, 5, 6],
               "seed-toy/src.ids == [4, 5, 6] (your cat is, no <s> </s>)", "got %r" % (ids,))
    tap.report(meta.get("src.tokens") == "your cat is", "seed-toy/metadata src.tokens",
               "got %r" % meta.get("src.tokens"))
    a = "encoder.0.self_attn."
    check(tap, got, "src.input", X, "X")
    check(tap, got, a + "q", Q[None], "Q")
    check(tap, got, a + "k", K[None], "K")
    check(tap, got, a + "v", V[None], "V")
    check(tap, got, a + "scores", scaled_scores[None], "Q.K^T/sqrt(d_k)")
    check(tap, got, a + "masked", scaled_scores[None], "Q.K^T/sqrt(d_k) (nothing masked)")
    check(tap, got, a + "weights", attention_weights[None], "attention_weights")
    check(tap, got, a + "heads", output[None], "output")
    check(tap, got, a + "concat", output, "output")
    check(tap, got, a + "out", output, "output (W_O is the identity)")
    print("1..%d" % tap.n)
    return 1 if tap.failed else 0


if __name__ == "__main__":
    sys.exit(main())
