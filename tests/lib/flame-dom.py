#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The frames of an ustack-flame page or SVG, one line each, for the tests:

  flame-dom.py FILE [--xml]

prints for every <g class="f ..."> "name<TAB>depth<TAB>shown<TAB>x<TAB>width
<TAB>label<TAB>classes", then "svg<TAB>KEY=VALUE" for the SVG's data-zoom
and data-matched, and "scripts<TAB>N", the number of <script> elements.
With --xml the file must be well-formed XML (the SVG): parsed strictly,
any error exits 1. Names are printed as Python escapes (repr without the
quotes would be ambiguous): unicode_escape of the text.
"""
import html.parser
import sys
import xml.etree.ElementTree as ET


def esc(text):
    return text.encode("unicode_escape").decode("ascii")


class Frames(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.frames = []
        self.svg = {}
        self.scripts = 0
        self.cur = None
        self.in_text = False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "script":
            self.scripts += 1
        elif tag == "svg" and a.get("id") == "flame":
            self.svg = {k: a.get(k, "") for k in ("data-zoom", "data-matched")}
        elif tag == "g" and "f" in (a.get("class") or "").split():
            shown = "none" not in (a.get("style") or "").replace(" ", "")
            self.cur = {"name": a.get("data-n", ""), "depth": a.get("data-d", ""),
                        "shown": "shown" if shown else "hidden",
                        "class": a.get("class", ""), "x": "", "width": "", "label": ""}
            self.frames.append(self.cur)
        elif tag == "rect" and self.cur is not None:
            self.cur["x"] = a.get("x", "")
            self.cur["width"] = a.get("width", "")
        elif tag == "text" and self.cur is not None:
            self.in_text = True

    def handle_endtag(self, tag):
        if tag == "g":
            self.cur = None
        elif tag == "text":
            self.in_text = False

    def handle_data(self, data):
        if self.in_text and self.cur is not None:
            self.cur["label"] += data


def main():
    path = sys.argv[1]
    with open(path, "rb") as f:
        raw = f.read()
    if "--xml" in sys.argv[2:]:
        try:
            ET.fromstring(raw)
        except ET.ParseError as e:
            print("not well-formed XML: %s" % e)
            return 1
    p = Frames()
    p.feed(raw.decode("utf-8"))
    for f in p.frames:
        print("\t".join([esc(f["name"]), f["depth"], f["shown"], f["x"], f["width"],
                         esc(f["label"]), f["class"]]))
    for k, v in sorted(p.svg.items()):
        print("svg\t%s=%s" % (k, esc(v)))
    print("scripts\t%d" % p.scripts)
    return 0


if __name__ == "__main__":
    sys.exit(main())
