#!/usr/bin/python3
"""check.py - checks of the figures attnscope writes (tests/figure.test).

  check.py svg FILE [--text T]... [--count T N]... [--no COLOUR]...
      FILE is well-formed SVG; each --text T is the whole content of one
      <text> (a label not split into characters, not cut); --count T N: at
      least N <text> elements are exactly T; every <text> drawn on the white
      page (not over a coloured rectangle) has WCAG contrast >= 4.5 against
      white; --no COLOUR: no element is filled with it (the TUI cursor).
  check.py png FILE W H
      FILE is a W x H PNG that is not blank: dark text pixels in the top
      line (the title) and at least 8 distinct colours (a colour scale).
  check.py dom FILE
      FILE is Chromium's --dump-dom of page.html after its script ran: the
      script's verdict line says every <text> was laid out with a width.
Exit status 1 with a message on the first failed check."""
import re
import sys
import xml.etree.ElementTree as ET

NS = "{http://www.w3.org/2000/svg}"


def fail(msg):
    print("check.py: " + msg)
    sys.exit(1)


def lum(hexc):
    r, g, b = (int(hexc[i:i + 2], 16) / 255 for i in (1, 3, 5))
    lin = [v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4 for v in (r, g, b)]
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]


def svg(args):
    path, texts, counts, nos = args[0], [], [], []
    i = 1
    while i < len(args):
        if args[i] == "--text":
            texts.append(args[i + 1]); i += 2
        elif args[i] == "--count":
            counts.append((args[i + 1], int(args[i + 2]))); i += 3
        elif args[i] == "--no":
            nos.append(args[i + 1].lower()); i += 2
        else:
            fail("unknown option " + args[i])
    try:
        root = ET.parse(path).getroot()
    except ET.ParseError as e:
        fail("%s: not well-formed XML: %s" % (path, e))
    if root.tag != NS + "svg":
        fail("%s: the root is %s, not <svg>" % (path, root.tag))
    els = list(root.iter(NS + "text"))
    content = [("".join(t.itertext()), t) for t in els]
    have = {}
    for s, _ in content:
        have[s] = have.get(s, 0) + 1
    for t in texts:
        if t not in have:
            near = [s for s, _ in content if t[:3] in s][:5]
            fail("%s: no <text> is exactly %r (near: %r)" % (path, t, near))
    for t, n in counts:
        if have.get(t, 0) < n:
            fail("%s: %d <text> elements are %r, expected at least %d" % (path, have.get(t, 0), t, n))
    # coloured rectangles (not the page) by row, to know what a text is on
    rects = []
    for r in root.iter(NS + "rect"):
        if r.get("fill", "").lower() in ("#ffffff",):
            continue
        rects.append((float(r.get("x", 0)), float(r.get("y", 0)),
                      float(r.get("width", 0)), float(r.get("height", 0))))
    for s, t in content:
        x, y = float(t.get("x")), float(t.get("y"))
        on_rect = any(rx <= x + 1 and x + 1 < rx + rw and ry <= y - 5 < ry + rh
                      for rx, ry, rw, rh in rects)
        if on_rect:
            continue
        fill = t.get("fill", "#000000")
        ratio = 1.05 / (lum(fill) + 0.05)
        if ratio < 4.5:
            fail("%s: %r in %s on white has contrast %.2f < 4.5" % (path, s, fill, ratio))
    for el in root.iter():
        if el.get("fill", "").lower() in nos:
            fail("%s: an element is filled with %s (the cursor)" % (path, el.get("fill")))
    print("%s: %d <text> elements, %d rectangles" % (path, len(els), len(rects)))


def png(args):
    from PIL import Image
    path, w, h = args[0], int(args[1]), int(args[2])
    im = Image.open(path).convert("RGB")
    if im.size != (w, h):
        fail("%s: %dx%d, expected %dx%d" % (path, im.size[0], im.size[1], w, h))
    top = im.crop((0, 0, min(w, 300), 18))
    dark = sum(1 for p in top.getdata() if sum(p) < 3 * 130)
    if dark < 30:
        fail("%s: the title line has %d dark pixels: no text drawn" % (path, dark))
    colours = len(set(im.getdata()))
    if colours < 8:
        fail("%s: %d distinct colours: blank or no colour scale" % (path, colours))
    print("%s: %dx%d, %d dark title pixels, %d colours" % (path, w, h, dark, colours))


def dom(args):
    text = open(args[0], encoding="utf-8").read()
    m = re.search(r'<pre id="verdict">([^<]*)</pre>', text)
    if not m:
        fail("%s: the page's script did not run (no verdict)" % args[0])
    v = m.group(1)
    if not v.startswith("ok "):
        fail("%s: %s" % (args[0], v))
    print("%s: %s" % (args[0], v))


if __name__ == "__main__":
    if len(sys.argv) < 3:
        fail(__doc__)
    {"svg": svg, "png": png, "dom": dom}.get(sys.argv[1], lambda a: fail(__doc__))(sys.argv[2:])
