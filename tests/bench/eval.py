#!/usr/bin/python3
"""eval.py - how a translator does on sentences students type.

    tests/bench/eval.py [--attnscope BIN] [--model M.yaml] [--beam K]
                        [--show N] [--json] FILE.tsv

FILE.tsv: lines "english<TAB>variant | variant | ..." ('#' lines are
comments; examples/eval/everyday.tsv).  Each English sentence is translated
with `attnscope translate --json` (greedy unless --beam) and reported:

  exact    the output equals one accepted variant, both lower-cased and with
           the punctuation . , ? ! : ; split off as tokens (so "casa?" and
           "casa ?" compare equal, "casa" and "casa." do not)
  chrF     character 6-gram F-score, beta 2 (Popović 2015), spaces removed,
           statistics summed over the corpus as sacrebleu does; of several
           variants each sentence counts the one it matches best
  unknown  the share of sentences with at least one token outside the
           model's vocabulary (translate --json "unknown")
  whole    the share of the words that are one token, of the English
           (translate --json "source") and of the output: subword-nmt's
           "@@" ends a piece inside a word, SentencePiece's "▁" starts one;
           <s>-like specials and punctuation are not words

--seen CORPUS.tsv also reports the figures over the sentences whose English
(lower-cased, punctuation removed) is not an English side of CORPUS.tsv (a
training corpus): the "unseen" share, what an unseen-template set measures.
--show N lists the first N misses; --json prints the figures as JSON;
--strip-punct removes . , ? ! : ; from the sentences and the variants first
(for a model that has no punctuation tokens).
Only the Python standard library; exit status 1 on a usage or run error."""
import argparse, json, os, re, subprocess, sys
from collections import Counter

PUNCT = ".,?!:;"


def norm(s):
    s = s.lower()
    s = re.sub("([%s])" % re.escape(PUNCT), r" \1 ", s)
    return " ".join(s.split())


def ngrams(s, n):
    s = s.replace(" ", "")
    return Counter(s[i:i + n] for i in range(len(s) - n + 1))


def chrf_stats(hyp, ref, order=6):
    """[(matches, hyp n-grams, ref n-grams)] for n = 1..order."""
    out = []
    for n in range(1, order + 1):
        h, r = ngrams(hyp, n), ngrams(ref, n)
        out.append((sum((h & r).values()), sum(h.values()), sum(r.values())))
    return out


def chrf(stats, beta=2.0):
    """chrF from per-order (matches, hyp, ref) totals: the F-beta score of
    the precision and recall averaged over the orders that occur."""
    prec, rec, k = 0.0, 0.0, 0
    for m, h, r in stats:
        if h == 0 or r == 0:
            continue
        prec += m / h
        rec += m / r
        k += 1
    if k == 0:
        return 0.0
    prec, rec = prec / k, rec / k
    if prec + rec == 0:
        return 0.0
    b2 = beta * beta
    return 100 * (1 + b2) * prec * rec / (b2 * prec + rec)


def words(pieces):
    """The words of a piece sequence, each a list of its pieces."""
    pieces = [p for p in pieces if not re.fullmatch(r"<[^<>\s]+>", p)]
    out, cur = [], []
    spm = any(p.startswith("\u2581") for p in pieces)
    for p in pieces:
        if spm and p.startswith("\u2581") and cur:
            out.append(cur)
            cur = []
        cur.append(p)
        if not spm and not p.endswith("@@"):
            out.append(cur)
            cur = []
    if cur:
        out.append(cur)
    bare = lambda w: "".join(w).replace("@@", "").replace("\u2581", "")
    return [w for w in out if re.search(r"\w", bare(w))]


def read(path):
    pairs = []
    for ln, line in enumerate(open(path, encoding="utf-8"), 1):
        line = line.rstrip("\n")
        if not line.strip() or line.startswith("#"):
            continue
        if "\t" not in line:
            sys.exit("%s:%d: no tab between the sentence and its translations" % (path, ln))
        en, pt = line.split("\t", 1)
        variants = [v.strip() for v in pt.split(" | ") if v.strip()]
        if not variants:
            sys.exit("%s:%d: no translation" % (path, ln))
        pairs.append((ln, en, variants))
    return pairs


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    here = os.path.dirname(os.path.abspath(__file__))
    ap.add_argument("--attnscope", default=os.environ.get(
        "ATTNSCOPE", os.path.join(here, "..", "..", "attnscope")))
    ap.add_argument("--model")
    ap.add_argument("--beam", type=int, default=1)
    ap.add_argument("--show", type=int, default=0)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--strip-punct", action="store_true")
    ap.add_argument("--seen")
    ap.add_argument("file")
    a = ap.parse_args()
    pairs = read(a.file)
    seen = None
    if a.seen:
        bare = lambda t: " ".join(re.sub("[%s]" % re.escape(PUNCT), " ", t.lower()).split())
        seen = set()
        for line in open(a.seen, encoding="utf-8"):
            seen.add(bare(line.split("\t", 1)[0]))
    exact = unk = failed = 0
    whole = [[0, 0], [0, 0]]   # [one-token words, words] of the English, the output
    total = [[0, 0, 0] for _ in range(6)]
    uexact = uunk = un = 0
    utotal = [[0, 0, 0] for _ in range(6)]
    misses = []
    for ln, en, variants in pairs:
        if a.strip_punct:
            strip = lambda t: " ".join(re.sub("[%s]" % re.escape(PUNCT), " ", t).split())
            en, variants = strip(en), [strip(v) for v in variants]
        cmd = [a.attnscope, "translate", "--json", "--beam", str(a.beam)]
        if a.model:
            cmd += ["--model", a.model]
        p = subprocess.run(cmd + ["--", en], capture_output=True, text=True)
        if p.returncode != 0:
            failed += 1
            out, unknown = "", ["(error: %s)" % p.stderr.strip()]
        else:
            j = json.loads(p.stdout)
            out, unknown = j.get("text", " ".join(j["output"])), j.get("unknown", [])
            for side, key in enumerate(("source", "output")):
                ws = words(j.get(key, []))
                whole[side][0] += sum(len(w) == 1 for w in ws)
                whole[side][1] += len(ws)
        o = norm(out)
        refs = [norm(v) for v in variants]
        hit = o in refs
        exact += hit
        unk += bool(unknown)
        best = max((chrf_stats(o, r) for r in refs), key=chrf)
        for k in range(6):
            for i in range(3):
                total[k][i] += best[k][i]
        if seen is not None and bare(en) not in seen:
            un += 1
            uexact += hit
            uunk += bool(unknown)
            for k in range(6):
                for i in range(3):
                    utotal[k][i] += best[k][i]
        if not hit:
            misses.append((ln, en, out, variants[0], unknown))
    n = len(pairs)
    res = {"file": a.file, "model": a.model or "(default)", "sentences": n,
           "strip_punct": a.strip_punct,
           "exact": exact, "exact_pct": 100.0 * exact / n if n else 0.0,
           "chrf": chrf(total), "with_unknown": unk,
           "with_unknown_pct": 100.0 * unk / n if n else 0.0, "errors": failed,
           "whole_words": whole[0][0], "words": whole[0][1],
           "whole_words_pct": 100.0 * whole[0][0] / whole[0][1] if whole[0][1] else 0.0,
           "whole_words_out": whole[1][0], "words_out": whole[1][1],
           "whole_words_out_pct": 100.0 * whole[1][0] / whole[1][1] if whole[1][1] else 0.0}
    if seen is not None:
        res["unseen"] = {"sentences": un, "exact": uexact,
                         "exact_pct": 100.0 * uexact / un if un else 0.0,
                         "chrf": chrf(utotal), "with_unknown": uunk,
                         "with_unknown_pct": 100.0 * uunk / un if un else 0.0}
    if a.json:
        print(json.dumps(res))
    else:
        print("%s on %s: %d sentences%s" % (res["model"], a.file, n,
              ", punctuation stripped" if a.strip_punct else ""))
        print("  exact match   %5.1f%% (%d)" % (res["exact_pct"], exact))
        print("  chrF          %5.1f" % res["chrf"])
        print("  with unknown  %5.1f%% (%d)" % (res["with_unknown_pct"], unk))
        print("  whole words   %5.1f%% of %d English, %5.1f%% of %d output" % (
            res["whole_words_pct"], whole[0][1], res["whole_words_out_pct"], whole[1][1]))
        if failed:
            print("  errors        %d" % failed)
        if seen is not None:
            u = res["unseen"]
            print("  not in %s: %d sentences" % (a.seen, un))
            print("    exact match %5.1f%% (%d)" % (u["exact_pct"], uexact))
            print("    chrF        %5.1f" % u["chrf"])
            print("    with unknown %4.1f%% (%d)" % (u["with_unknown_pct"], uunk))
    for ln, en, out, ref, unknown in misses[:a.show]:
        print("  line %d: %s -> %s   (want %s)%s" % (
            ln, en, out, ref, "  unknown: " + " ".join(unknown) if unknown else ""))
    return 1 if failed == n and n else 0


if __name__ == "__main__":
    sys.exit(main())
