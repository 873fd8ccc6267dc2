#!/usr/bin/env python3
"""Lists user-visible string literals in src/ and views/ that are outside
gettext: what xgettext finds in the sources (all literals) minus what it
extracts with the project's keywords (po/Makevars) and minus literals that
are not messages:

  - literals without a word of two letters ("%s: %d", "│", "−∞");
  - markup and identifiers: no space and a '.', '_', '<', '&', '=' or '/'
    inside (stage names "cross.k", keys "d_model", "<pad>", SVG);
  - arguments of functions that take names, not messages (strcmp,
    ynode_get, getenv, fopen, ...: NAME_FUNCS below, found by xgettext too);
  - the msgids listed in tests/i18n/not-messages/*.txt (YAML keys, format
    names, trace families, ... each group with its reason).

Prints "file:line: literal" for each one left and exits 1 if any is.
usage: untranslated.py SRCDIR"""
import os, re, subprocess, sys, tempfile

NAME_FUNCS = ["strcmp:2", "strcmp:1", "strncmp:2", "strncmp:1", "ynode_get:2",
              "getenv:1", "fopen:2", "fopen:1", "strstr:2", "strchr:2", "fputs_json:2",
              "json_key:2", "trace_find:2", "trace_get:2", "stage_find:2", "setlocale:2",
              "newterm:1", "tigetstr:1", "tigetnum:1", "setenv:1", "strspn:2",
              "strcspn:2", "known_key:2", "ystr:2", "has_prefix:2", "ends_with:2",
              "str_eq:2", "name_is:2", "same:2", "starts:2", "jsonout_field:2",
              "jsonout_num:2", "tokjson_str:3", "tokjson_bool:3"]


def unquote(lines):
    return "".join(re.findall(r'"((?:[^"\\]|\\.)*)"', lines))


def entries(pot):
    """(msgid, [locations]) for each entry of a PO/POT text; a plural
    entry gives its msgid and its msgid_plural."""
    out = []
    for block in pot.split("\n\n"):
        locs, field, parts = [], None, {}
        for line in block.splitlines():
            if line.startswith("#:"):
                locs += line[2:].split()
            elif line.startswith(("msgid ", "msgid_plural ", "msgstr")):
                field = line.split(" ", 1)[0]
                parts[field] = parts.get(field, "") + line.split(" ", 1)[1]
            elif line.startswith('"') and field:
                parts[field] += line
        for f in ("msgid", "msgid_plural"):
            text = unquote(parts.get(f, ""))
            if text:
                out.append((text, locs))
    return out


def xgettext(srcdir, files, args):
    with tempfile.NamedTemporaryFile(suffix=".pot") as f:
        subprocess.run(["xgettext", "--from-code=UTF-8", "--no-wrap",
                        "--force-po", "-o", f.name, "-D", srcdir] + args + files,
                       check=True, stderr=subprocess.DEVNULL)
        return entries(open(f.name, encoding="utf-8").read())


def makevars_keywords(srcdir):
    text = open(os.path.join(srcdir, "po/Makevars")).read().replace("\\\n", " ")
    opts = re.search(r"^XGETTEXT_OPTIONS\s*=(.*)$", text, re.M).group(1).split()
    return [o for o in opts if o.startswith(("--keyword", "--flag"))]


def main():
    srcdir = sys.argv[1] if len(sys.argv) > 1 else "."
    files = sorted(os.path.relpath(os.path.join(d, f), srcdir)
                   for top in ("src", "views")
                   for d, _, names in os.walk(os.path.join(srcdir, top))
                   for f in names if f.endswith(".c"))
    marked = {m for m, _ in xgettext(srcdir, files, makevars_keywords(srcdir))}
    names = {m for m, _ in xgettext(srcdir, files, ["-k"] + ["--keyword=" + k for k in NAME_FUNCS])}
    allowed = set()
    d = os.path.join(srcdir, "tests/i18n/not-messages")
    for name in sorted(os.listdir(d)):
        for line in open(os.path.join(d, name), encoding="utf-8"):
            line = line.rstrip("\n")
            if line and not line.startswith("#"):
                allowed.add(line)
    left = []
    literals = xgettext(srcdir, files, ["-a"])
    needed = set()
    for text, locs in literals:
        if text in marked or text in names:
            continue
        if text in allowed:
            needed.add(text)
            continue
        plain = re.sub(r"%[-+ #0-9.*]*[a-zA-Z]+|\\[ntr\"\\]", " ", text)
        if not re.search(r"[A-Za-z]{2}", plain):
            continue
        if " " not in text.strip() and re.search(r"[._<&=/]", text):
            continue
        # a literal marked somewhere but also used unmarked: report the unmarked uses
        left.append((locs, text))
    for locs, text in left:
        print("%s: %s" % (locs[0] if locs else "?", text))
    # the lists stay honest: an entry that is no longer an unmarked literal goes
    stale = sorted(allowed - needed)
    for text in stale:
        print("tests/i18n/not-messages: no longer needed: %s" % text)
    if stale:
        print("%d stale entr(y/ies) in tests/i18n/not-messages/" % len(stale), file=sys.stderr)
        return 1
    if left:
        print("%d literal(s) outside gettext: mark them with _() / N_(), or list them "
              "in tests/i18n/not-messages/*.txt with the reason" % len(left), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
