#!/usr/bin/python3
"""check_deck.py INDEX.html LECTURE.yaml LANG [CAPTION-SUBSTRING]

Checks an exported lecture page (attnscope --lecture L --export DIR):
<html lang=LANG>; one <section class="step"> per step of the script, each
with one inline <svg> and a <figcaption>; for an English export each
caption is the script's own (whitespace folded); a given substring
appears in some caption (a translated one); the page is self-contained
(no src= or href= attribute, no <link>).  Exit status 1 on the first
failure."""
import re
import sys
from html.parser import HTMLParser

import yaml


class Deck(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.lang = None
        self.steps = []          # [svg count, caption]
        self.external = []
        self.in_cap = False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "html":
            self.lang = a.get("lang")
        if tag == "section" and "step" in (a.get("class") or "").split():
            self.steps.append([0, ""])
        if tag == "svg" and self.steps:
            self.steps[-1][0] += 1
        if tag == "figcaption":
            self.in_cap = True
        if tag == "link" or "src" in a or "href" in a:
            self.external.append(tag)

    def handle_endtag(self, tag):
        if tag == "figcaption":
            self.in_cap = False

    def handle_data(self, data):
        if self.in_cap and self.steps:
            self.steps[-1][1] += data


def fold(s):
    return " ".join((s or "").split())


def main():
    page, script, lang = sys.argv[1], sys.argv[2], sys.argv[3]
    want = sys.argv[4] if len(sys.argv) > 4 else None
    d = Deck()
    d.feed(open(page, encoding="utf-8").read())
    lec = yaml.safe_load(open(script, encoding="utf-8"))
    n = len(lec["steps"])
    if d.lang != lang:
        return "lang is %r, expected %r" % (d.lang, lang)
    if len(d.steps) != n:
        return "%d step sections, the script has %d steps" % (len(d.steps), n)
    for i, (svgs, cap) in enumerate(d.steps):
        if svgs != 1:
            return "step %d has %d <svg>" % (i + 1, svgs)
        if lang == "en" and fold(cap) != fold(lec["steps"][i].get("caption")):
            return "step %d caption %r, the script's %r" % (i + 1, fold(cap)[:60],
                                                          fold(lec["steps"][i].get("caption"))[:60])
    if want and not any(want in fold(c) for _, c in d.steps):
        return "no caption contains %r" % want
    if d.external:
        return "not self-contained: %r" % d.external
    print("%s: lang %s, %d steps, each one <svg> and its caption" % (page, lang, n))
    return None


if __name__ == "__main__":
    msg = main()
    if msg:
        print("check_deck.py: " + msg)
        sys.exit(1)
