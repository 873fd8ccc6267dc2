"""golden_test.py - compare every stage of `attnscope dump` with the numpy
reference (tests/golden/reference.py), for several random models and mask
options.  Prints TAP; exits non-zero on any failure.

Environment: ATTNSCOPE (the binary, required), GOLDEN_KEEP=1 keeps the
temporary model/dump directory.  Arguments: preset names to run (default:
all), e.g. `golden_test.py a b`.

Tolerance: |dump - ref| <= ATOL + RTOL * |ref| for finite entries; -inf must
be -inf at exactly the same positions; ids must match exactly (I32).
"""

import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True  # the source tree may be read-only
sys.path.insert(0, HERE)
import make_model  # noqa: E402
import reference  # noqa: E402
import stio  # noqa: E402

ATOL = 1e-5
RTOL = 1e-5

# Runs: (preset, sentence, target, [(label, options, ref kwargs)], todo)
# todo: reason string when the architecture's trace convention is not fixed
# by DESIGN.md; failures are then reported as TAP TODO (not a failure).
ENC_DEC_OPTIONS = [
    ("default", [], {}),
    ("no-causal", ["--no-causal"], {"causal": False}),
    ("encoder-causal", ["--encoder-causal"], {"encoder_causal": True}),
    ("pad", ["--pad-to", "12", "--pad-target", "10"], {"pad_to": 12, "pad_target": 10}),
    ("all", ["--no-causal", "--encoder-causal", "--pad-to", "13", "--pad-target", "11"],
     {"causal": False, "encoder_causal": True, "pad_to": 13, "pad_target": 11}),
]
ENC_ONLY_OPTIONS = [
    ("default", [], {}),
    ("encoder-causal", ["--encoder-causal"], {"encoder_causal": True}),
    ("pad", ["--pad-to", "10"], {"pad_to": 10}),
]
DEC_ONLY_OPTIONS = [
    ("default", [], {}),
    ("no-causal", ["--no-causal"], {"causal": False}),
    ("pad", ["--pad-target", "12"], {"pad_target": 12}),
]

RUNS = [
    ("a", "The cat sees my dog.", "o gato vê meu cão .", ENC_DEC_OPTIONS, None),
    ("b", "Your big cat loves water, zebra!", "seu gato grande ama água , zebra !",
     ENC_DEC_OPTIONS, None),
    ("c", "the small bird is very green", None, ENC_ONLY_OPTIONS, None),
    ("d", "i love you", "very much .", DEC_ONLY_OPTIONS, None),
    ("e", "we like the big tree", "nós gosto a árvore", ENC_DEC_OPTIONS, None),
]


class Tap:
    def __init__(self):
        self.n = 0
        self.failed = 0

    def report(self, ok, name, diag=None, todo=None):
        self.n += 1
        line = "%s %d - %s" % ("ok" if ok else "not ok", self.n, name)
        if not ok and todo:
            line += " # TODO " + todo
        print(line)
        if not ok:
            if not todo:
                self.failed += 1
            for d in (diag or "").splitlines():
                print("# " + d)
        sys.stdout.flush()
        return ok

    def done(self):
        print("1..%d" % self.n)
        return 1 if self.failed else 0


def fmt_index(idx):
    return "[" + ",".join(str(int(i)) for i in idx) + "]"


def compare(name, got, ref):
    """Return (ok, diagnostic)."""
    ref = np.asarray(ref)
    got = np.asarray(got)
    if tuple(got.shape) != tuple(ref.shape):
        return False, "%s: shape %s, expected %s" % (name, list(got.shape), list(ref.shape))
    if ref.dtype.kind in "iu":
        if got.dtype != np.int32:
            return False, "%s: dtype %s, expected I32" % (name, got.dtype)
        bad = np.argwhere(got != ref)
        if len(bad):
            i = tuple(bad[0])
            return False, ("%s: %d ids differ; first at %s: got %d, expected %d\n"
                           "got %s\nexpected %s" % (name, len(bad), fmt_index(i), got[i], ref[i],
                                                    got.tolist(), ref.tolist()))
        return True, ""
    if got.dtype != np.float32:
        return False, "%s: dtype %s, expected F32" % (name, got.dtype)
    g = got.astype(np.float64)
    r = ref.astype(np.float64)
    ref_inf = np.isneginf(r)
    got_inf = np.isneginf(g)
    bad_inf = ref_inf != got_inf
    bad_nan = np.isnan(g) | np.isposinf(g)
    fin = ~ref_inf & ~got_inf & ~bad_nan
    with np.errstate(invalid="ignore"):
        diff = np.where(fin, np.abs(g - r), 0.0)
    tol = ATOL + RTOL * np.abs(np.where(fin, r, 0.0))
    bad = bad_inf | bad_nan | (diff > tol)
    if bad.any():
        i = tuple(np.argwhere(bad)[0])
        maxd = diff.max() if diff.size else 0.0
        kind = ("-inf mismatch" if bad_inf[i] else "NaN/+inf" if bad_nan[i] else "value")
        return False, ("%s: %d of %d entries differ (%s first); first at %s: got %.9g, "
                       "expected %.9g; max |diff| over finite entries %.3g (atol %g, rtol %g)"
                       % (name, int(bad.sum()), bad.size, kind, fmt_index(i), g[i], r[i],
                          maxd, ATOL, RTOL))
    return True, ""


def tokens_match(meta_value, expected, unk):
    """metadata token list vs ours; positions mapped to <unk> may carry
    either the typed word or "<unk>"."""
    got = meta_value.split(" ") if meta_value else []
    if len(got) != len(expected):
        return False
    return all(g == e or (p in unk and g == "<unk>") for p, (g, e) in
               enumerate(zip(got, expected)))


def run_one(tap, binary, workdir, preset, yaml_path, model, sentence, target,
            label, opts, kwargs, todo):
    tag = "%s/%s" % (preset, label)
    out = os.path.join(workdir, "%s-%s.safetensors" % (preset, label))
    cmd = [binary, "dump", "--out", out, "--model", yaml_path]
    if target is not None:
        cmd += ["--target", target]
    cmd += opts + [sentence]
    try:
        ref, info = reference.forward(model, sentence, target=target, **kwargs)
    except Exception as e:  # a bug in the test itself
        tap.report(False, "%s/reference" % tag, "reference failed: %r" % e)
        return
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120)
        rc, err = p.returncode, p.stderr.decode("utf-8", "replace")
    except (OSError, subprocess.TimeoutExpired) as e:
        rc, err = -1, str(e)
    cmdline = " ".join("'%s'" % c if " " in c else c for c in cmd)
    if not tap.report(rc == 0 and os.path.exists(out), "%s/dump runs" % tag,
                      "command: %s\nexit %s\n%s" % (cmdline, rc, err.strip()), todo):
        return
    try:
        got, meta = stio.read(out)
    except Exception as e:
        tap.report(False, "%s/dump is readable safetensors" % tag, str(e), todo)
        return
    optional = info["optional"]
    for name, val in ref.items():
        if name not in got:
            if name in optional:
                continue
            tap.report(False, "%s/%s" % (tag, name), "stage %s missing from the dump" % name, todo)
            continue
        ok, diag = compare(name, got[name], val)
        tap.report(ok, "%s/%s" % (tag, name), diag + ("\ncommand: " + cmdline if not ok else ""),
                   todo)
    extra = sorted(set(got) - set(ref))
    tap.report(not extra, "%s/no unexpected stages" % tag,
               "stages not in the reference: %s" % " ".join(extra), todo)
    if info["src_tokens"]:
        ok = tokens_match(meta.get("src.tokens"), info["src_tokens"], info["unk_src"])
        tap.report(ok, "%s/metadata src.tokens" % tag, "got %r, expected %r"
                   % (meta.get("src.tokens"), " ".join(info["src_tokens"])), todo)
    if info["tgt_tokens"]:
        ok = tokens_match(meta.get("tgt.tokens"), info["tgt_tokens"], info["unk_tgt"])
        tap.report(ok, "%s/metadata tgt.tokens" % tag, "got %r, expected %r"
                   % (meta.get("tgt.tokens"), " ".join(info["tgt_tokens"])), todo)


def _safe_stdout():
    try:
        sys.stdout.reconfigure(errors="backslashreplace")
    except AttributeError:
        pass


def main(argv):
    _safe_stdout()
    tap = Tap()
    reference.selftest(lambda ok, name, diag: tap.report(ok, "reference/" + name, diag))
    binary = os.environ.get("ATTNSCOPE")
    if not binary or not os.access(binary, os.X_OK):
        tap.report(False, "attnscope binary found", "ATTNSCOPE=%r is not an executable" % binary)
        return tap.done()
    wanted = set(argv) or {r[0] for r in RUNS}
    workdir = tempfile.mkdtemp(prefix="attnscope-golden-")
    try:
        for preset, sentence, target, options, todo in RUNS:
            if preset not in wanted:
                continue
            mdir = os.path.join(workdir, preset)
            yaml_path, model = make_model.make_model(mdir, make_model.PRESETS[preset])
            for label, opts, kwargs in options:
                run_one(tap, binary, workdir, preset, yaml_path, model, sentence, target,
                        label, opts, kwargs, todo)
    finally:
        if os.environ.get("GOLDEN_KEEP"):
            print("# kept %s" % workdir)
        else:
            shutil.rmtree(workdir, ignore_errors=True)
    return tap.done()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
