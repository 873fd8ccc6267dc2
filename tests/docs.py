#!/usr/bin/env python3
"""docs.py TOP ATTNSCOPE - README.md and doc/*.md against the build (TAP).

What a newcomer meets in the README and the manual must exist:

- every `attnscope ...` command shown (in a code block or a code span)
  names a real subcommand and options that subcommand takes: each is run
  with its option values (files swapped for paths that do not exist, so
  nothing is loaded, written or opened on a terminal) and must not fail
  on the command line itself; those that need only the shipped files are
  also run for real (a lecture with --check) and must succeed;
- every key in the README's key table is a key of the stepper, read from
  its `?` help screen drawn headless (render --view stepper --keys ?);
- every relative link resolves to a file, and an #anchor to a heading;
- the README's pictures are what this build draws (doc/pictures/render.sh);
- the README stays short: the two set-up commands first, at most 250 lines.
"""
import glob
import os
import re
import shlex
import subprocess
import sys
import tempfile

TOP, BIN = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
TMP = tempfile.mkdtemp(prefix="attnscope-docs.")
NOWHERE = os.path.join(TMP, "nowhere", "file")   # a path that never exists
ENV = dict(os.environ, LANG="C.UTF-8", LC_ALL="C.UTF-8", ATTNSCOPE_MODEL=NOWHERE)
ENV.pop("LANGUAGE", None)

n = failed = 0


def check(ok, what, details=()):
    global n, failed
    n += 1
    print(("ok %d - %s" if ok else "not ok %d - %s") % (n, what))
    if not ok:
        failed += 1
        for d in list(details)[:40]:
            print("#   " + d)


def run(args, cwd=TOP, env=ENV, timeout=120):
    try:
        p = subprocess.run([BIN] + args, cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                           capture_output=True, timeout=timeout)
        return p.returncode, p.stdout.decode("utf-8", "replace"), \
            p.stderr.decode("utf-8", "replace")
    except subprocess.TimeoutExpired:
        return -1, "", "timed out after %d s" % timeout


PAGES = [os.path.join(TOP, "README.md")] + sorted(glob.glob(os.path.join(TOP, "doc", "*.md")))


def rel(path):
    return os.path.relpath(path, TOP)


def split_code(text):
    """(prose with code removed, [(line, code line)] of fenced blocks,
    [(line, span)] of inline code spans)."""
    prose, blocks, spans = [], [], []
    fence = None
    for i, line in enumerate(text.split("\n"), 1):
        m = re.match(r"^\s*(```+|~~~+)", line)
        if m and (fence is None or m.group(1)[0] == fence[0]):
            fence = None if fence else m.group(1)
            prose.append("")
            continue
        if fence:
            blocks.append((i, line))
            prose.append("")
        else:
            prose.append(line)
    body = "\n".join(prose)
    for m in re.finditer(r"(`+)(.+?)\1", body, re.S):
        spans.append((body.count("\n", 0, m.start()) + 1, re.sub(r"\s+", " ", m.group(2))))
    return re.sub(r"(`+)(.+?)\1", "", body, flags=re.S), blocks, spans


# --- the subcommands and the options --help names ----------------------------
st, HELP, err = run(["--help"], env=dict(ENV))
check(st == 0 and "usage:" in HELP, "attnscope --help prints the usage", [err])
SUBS = set(re.findall(r"^\s+attnscope ([a-z][a-z-]+)", HELP, re.M))
HELPS = {}


def sub_help(sub):
    """attnscope SUB --help, or None when SUB is no subcommand."""
    if sub not in HELPS:
        st, out, err = run([sub, "--help"])
        HELPS[sub] = out + err if st in (0, 1) and "usage" in out + err and \
            "unknown command" not in err else None
    return HELPS[sub]


# --- the commands shown --------------------------------------------------------
def commands(path):
    """[(line, argv after attnscope)] of every attnscope command shown."""
    text = open(path, encoding="utf-8").read()
    _, blocks, spans = split_code(text)
    found = []
    joined, start = "", 0
    for i, line in blocks:     # backslash continuations make one line
        if not joined:
            start = i
        if line.rstrip().endswith("\\"):
            joined += line.rstrip()[:-1] + " "
            continue
        found.append((start, joined + line))
        joined = ""
    found += spans
    out = []
    for i, line in found:
        line = re.split(r"\s{3,}", line.strip())[0]     # a description column
        m = re.search(r"(?:^|&&\s*|^\$\s+)(?:\./)?attnscope(?:\s+(.*))?$", line)
        if not m:
            continue
        rest = m.group(1) or ""
        try:
            argv = shlex.split(rest, comments=True)
        except ValueError:
            argv = rest.split()
        out.append((i, argv, line))
    return out


FILE_OPTS = {"model", "lecture", "corpus", "grammar", "out", "save-weights", "export",
             "resume", "file", "heldout", "merges"}
DUMMY = {"format": "text", "decode": "greedy", "view": "lines", "side": "src",
         "scheme": "default", "lang": "en", "stage": "src.ids", "target": "x",
         "dims": "4-7", "keys": "?", "width": "80", "height": "24", "temperature": "1",
         "top-p": "0.9", "alpha": "0.6", "snapshot": "0"}
PLACE = re.compile(r"^[A-Z][A-Z0-9_]*(\.[A-Za-z0-9.]+)?$")
FILE_PLACE = {"FILE", "DIR", "PREFIX", "F", "M", "CKPT"}


def clean(argv):
    """argv without the synopsis' brackets, bars and ellipses: (subcommand,
    [(option, value or None)], [positional words], synopsis?)."""
    toks, synopsis = [], False
    for t in argv:
        if t in ("|", "...", "…") or t.startswith("(") or t.endswith(")"):
            synopsis = True
            continue
        s = t.strip("[]")
        if s != t or "|" in s:
            synopsis = True
        if s:
            toks.append(s)
    sub = ""
    if toks and not toks[0].startswith("-") and (toks[0] in SUBS or sub_help(toks[0])):
        sub = toks.pop(0)
    opts, words = [], []
    i = 0
    while i < len(toks):
        t = toks[i]
        if re.match(r"^--?[A-Za-z]", t):
            name, eq, val = t.partition("=")
            if not eq and i + 1 < len(toks) and not toks[i + 1].startswith("-") and \
                    takes_value(sub, name):
                val = toks[i + 1]
                i += 1
            if not eq and not val and i + 1 == len(toks) and takes_value(sub, name):
                val, synopsis = "VALUE", True   # prose names the option alone
            opts.append((name, val if (eq or val) else None))
        else:
            words.append(t)
        i += 1
    return sub, opts, words, synopsis


def takes_value(sub, opt):
    """Whether --help shows OPT followed by a value (--model FILE)."""
    text = HELP + (sub_help(sub) or "" if sub else "")
    return re.search(re.escape(opt) + r"[ =]([A-Z]|[a-z0-9]+\||\"|0)", text) is not None


def parse_args(sub, opts):
    """argv for the command-line check: real values, placeholders filled,
    every file a path that does not exist."""
    args = [sub] if sub else []
    for name, val in opts:
        args.append(name)
        if val is None:
            continue
        o = name.lstrip("-")
        first = val.split("|")[0]
        if PLACE.match(first):
            if first in FILE_PLACE or "." in first:
                val = NOWHERE
            else:
                val = DUMMY.get(o, "2")
        elif "|" in val and re.match(r"^[a-z0-9|-]+$", val):
            val = first
        if o in FILE_OPTS and not re.match(r"^\d+$", val):
            val = NOWHERE
        args.append(val)
    return args


# what attnscope says of a command line it does not take (a missing option
# is no such error: code spans show parts of commands)
CLI_ERRORS = re.compile(r"unknown option|does not use|needs a value|only with|"
                        r"unknown command|takes no|must be |^attnscope: --\S+ needs ")
HARMLESS = {"translate", "render", "info", "dump", "importance", ""}


def real_args(sub, opts, words):
    """argv to run for real, or None when the command is not harmless or
    names what a fresh checkout does not have."""
    if sub not in HARMLESS:
        return None
    names = [o for o, _ in opts]
    if sub == "" and "--lecture" not in names:
        return None      # the stepper itself: a terminal
    if sub == "importance" and "--corpus" in names:
        return None      # every pair of a corpus: minutes
    if sub == "dump" and "--out" not in names:
        return None      # a part of a command
    if sub in ("translate", "dump", "importance") and not words:
        return None
    if sub == "render" and not (words or "--view" in names or "--stage" in names):
        return None
    if sub == "info" and any(not os.path.exists(os.path.join(TOP, w)) for w in words):
        return None      # a model the reader downloads
    args = [sub] if sub else []
    for name, val in opts:
        if val is not None and (PLACE.match(val.split("|")[0]) or "~" in val):
            return None
        if name in ("--model", "--lecture", "--corpus") and \
                not os.path.exists(os.path.join(TOP, val)):
            return None
        if name == "--export":
            return None
        args += [name] + ([] if val is None else
                          [os.path.join(TMP, "out." + os.path.basename(val))
                           if name == "--out" else val])
    for w in words:
        if PLACE.match(w) or "~" in w or w.startswith(("<", ">")):
            return None
    if sub == "" and "--check" not in names:
        args.append("--check")
    return args + words


seen = set()
for page in PAGES:
    for line, argv, shown in commands(page):
        sub, opts, words, synopsis = clean(argv)
        key = (sub, tuple(opts), tuple(words))
        if key in seen:
            continue
        seen.add(key)
        where = "%s:%d: attnscope %s" % (rel(page), line, " ".join(argv))
        args = parse_args(sub, opts)
        st, out, err = run(args + (["--check"] if sub == "" and "--lecture" in
                                   [o for o, _ in opts] and "--check" not in
                                   [o for o, _ in opts] else []), timeout=60)
        bad = st != 0 and CLI_ERRORS.search(err.split("\n")[0] if err else "")
        check(not bad, "%s: the command line is one attnscope takes" % where,
              ["ran: attnscope " + " ".join(args), err.strip()])
        ra = None if synopsis else real_args(sub, opts, words)
        if ra is not None:
            env = dict(ENV)
            del env["ATTNSCOPE_MODEL"]     # the shipped default
            st, out, err = run(ra, env=env, timeout=300)
            check(st == 0, "%s: runs on a fresh checkout" % where,
                  ["ran: attnscope " + " ".join(ra), err.strip()[-2000:]])

# --- the keys ------------------------------------------------------------------
st, screen, err = run(["render", "--view", "stepper", "--keys", "?", "--width", "160",
                       "--height", "100", "--model", os.path.join(TOP, "models", "en-pt-tiny.yaml")])
# the help lists "keys  what they do": the keys in a column of their own,
# the descriptions from one column on (a long key list may meet them)
rows = screen.split("\n")
top = next((i for i, l in enumerate(rows) if l.startswith(" keys ")), len(rows))
rows = [l for l in rows[top + 1:] if l.strip() and "│" not in l]
cols = [m.start(2) for m in (re.match(r"^ (\S.*?)\s{2,}(\S)", l) for l in rows) if m]
col = max(set(cols), key=cols.count) if cols else 0
keys = set()
for l in rows:
    if len(l) > col and l[col - 1] == " ":
        keys.update(l[:col].split())
check(st == 0 and {"q", "?", "r"} <= keys, "the stepper's help screen draws headless",
      [err.strip()] + screen.split("\n")[:10])
readme = open(PAGES[0], encoding="utf-8").read()
sec = re.search(r"^## The keys\n(.*?)(?=^## |\Z)", readme, re.M | re.S)
check(sec is not None, "README.md has a section \"The keys\"")
shown, missing = [], []
if sec:
    for row in re.findall(r"^\|(.+?)\|(.+)\|\s*$", sec.group(1), re.M):
        if set(row[0].strip()) <= set("-: "):
            continue
        if row[0].strip() == "keys":
            continue
        ks = [k for k in row[0].split() if k not in ("·",)]
        ks += re.findall(r"`([^`\s]+)`", row[1])
        for k in ks:
            shown.append(k)
            if k not in keys:
                missing.append(k)
check(len(shown) > 20 and not missing,
      "the %d keys of README.md's key table are keys of the stepper" % len(shown),
      ["not in the help screen: " + " ".join(missing)])

# --- links ---------------------------------------------------------------------
def slug(heading):
    s = heading.strip().lower()
    s = re.sub(r"[^\w\- ]", "", s)
    return s.replace(" ", "-")


def anchors(path):
    prose, _, _ = split_code(open(path, encoding="utf-8").read())
    return {slug(re.sub(r"`", "", h)) for h in re.findall(r"^#{1,6} (.+)$", prose, re.M)}


for page in PAGES:
    text = open(page, encoding="utf-8").read()
    prose, _, _ = split_code(text)
    bad, count = [], 0
    for m in re.finditer(r"\]\(([^()\s]+)\)", prose):
        target = m.group(1)
        if re.match(r"^[a-z]+:", target):
            continue
        count += 1
        path, _, anchor = target.partition("#")
        full = os.path.normpath(os.path.join(os.path.dirname(page), path)) if path else page
        if not os.path.exists(full):
            bad.append("%s: no such file" % target)
        elif anchor and full.endswith(".md") and anchor not in anchors(full):
            bad.append("%s: no heading #%s in %s" % (target, anchor, rel(full)))
    check(not bad, "%s: its %d relative links resolve" % (rel(page), count), bad)

# --- the pictures --------------------------------------------------------------
pics = os.path.join(TMP, "pictures")
os.mkdir(pics)
p = subprocess.run(["sh", os.path.join(TOP, "doc", "pictures", "render.sh"), BIN, pics],
                   env=ENV, capture_output=True)
check(p.returncode == 0, "doc/pictures/render.sh draws the pictures",
      [p.stderr.decode("utf-8", "replace")])
for name in sorted(os.listdir(pics)):
    new = open(os.path.join(pics, name), encoding="utf-8").read().split("\n")
    try:
        old = open(os.path.join(TOP, "doc", "pictures", name), encoding="utf-8").read().split("\n")
    except OSError:
        old = None
    diff = []
    if old is not None and old != new:
        for i, (a, b) in enumerate(zip(old + [""] * len(new), new + [""] * len(old))):
            if a != b:
                diff = ["line %d differs:" % (i + 1), "committed: " + a[:300],
                        "this build: " + b[:300], "run `make pictures` and commit them"]
                break
    check(old is not None and old == new,
          "doc/pictures/%s is the current build's" % name,
          diff or ["missing: run `make pictures`"])
    check(("](doc/pictures/%s)" % name) in readme, "README.md shows doc/pictures/%s" % name)

# --- the README's shape ----------------------------------------------------------
lines = readme.split("\n")
check(len(readme.rstrip("\n").split("\n")) <= 250,
      "README.md is at most 250 lines (%d)" % len(readme.rstrip("\n").split("\n")))
check(lines[2:6] == ["```sh",
                     "sh .ci/setup && ./attnscope            # install what is missing, "
                     "build, open the stepper",
                     "sh .ci/setup && make check             # the same set-up, then the "
                     "whole test suite", "```"],
      "README.md opens with the two set-up commands", lines[:6])

subprocess.run(["rm", "-rf", TMP])
print("1..%d" % n)
sys.exit(1 if failed else 0)
