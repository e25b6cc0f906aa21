#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# ustack-flame's HTML page and SVG opened in headless Chromium (Debian's
# chromium; make deps installs it): screenshots kept in build/tests/flame/,
# and the DOM after the page's script ran (--dump-dom) read back: the frame
# names, a zoom (a click event on a frame, sent by the page's "#zoom=NAME"
# link, through the same listener as a mouse click), the zoom back out, a
# search, and the hostile names of names.dat as text. No root needed (as
# root, Chromium runs with --no-sandbox); its profile is a temporary one.
. "$(dirname "$0")/../lib/result.sh"
. "$(dirname "$0")/../lib/flame.sh"

DOM=$USTACK_TOP/tests/lib/flame-dom.py
SHOTS=$USTACK_TOP/build/tests/flame
if ! command -v chromium >/dev/null; then
	skip "flame graph in Chromium" "no chromium (make deps installs Debian's chromium)"
	finish
fi
flame_require "ustack-flame built"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
flame_setup "$work"
mkdir -p "$SHOTS"

# chrome ARGS... URL: headless Chromium, 90 s at most, its noise in a log
chrome() {
	local sandbox=

	[ "$(id -u)" = 0 ] && sandbox=--no-sandbox
	timeout 90 chromium --headless $sandbox --disable-gpu --hide-scrollbars --no-first-run \
		--user-data-dir="$work/chrome" "$@" 2>>"$work/chrome.log"
}

# dom URL: the frames of the page as its script left them (flame-dom.py)
dom() { chrome --dump-dom "$1" > "$work/dom.html" && python3 "$DOM" "$work/dom.html"; }

# frame NAME: that frame's line of the last dom
frame() { awk -F'\t' -v n="$1" '$1 == n' "$work/frames"; }

# png FILE: "WIDTHxHEIGHT" of a PNG, from its header
png() { python3 -c '
import struct, sys
d = open(sys.argv[1], "rb").read(24)
assert d[:8] == b"\x89PNG\r\n\x1a\n" and d[12:16] == b"IHDR"
print("%dx%d" % struct.unpack(">II", d[16:24]))' "$1" 2>/dev/null; }

flame -f html -t "kstack.dat: ustack-sample" "$FLAME_FX/kstack.dat" > "$work/k.html"
flame -f svg "$FLAME_FX/kstack.dat" > "$work/k.svg"
flame -f html -t "names.dat" "$FLAME_FX/names.dat" > "$work/n.html"
flame -a -F <(flame "$FLAME_FX/kstack.dat") > "$work/folded"
url=file://$work/k.html

# -- screenshots: the graph, and zoomed, as a person sees them
rm -f "$SHOTS"/*.png
chrome --screenshot="$SHOTS/kstack.png" --window-size=1200,330 "$url" >/dev/null
check "screenshot: build/tests/flame/kstack.png, 1200x330" test "$(png "$SHOTS/kstack.png")" = 1200x330
check "screenshot: not a blank page (more than 15 kB)" \
	test "$(stat -c %s "$SHOTS/kstack.png" 2>/dev/null || echo 0)" -gt 15000
chrome --screenshot="$SHOTS/kstack-zoom.png" --window-size=1200,330 "$url#zoom=sample_then" \
	>/dev/null
check "screenshot: zoomed to sample_then, build/tests/flame/kstack-zoom.png" \
	test "$(png "$SHOTS/kstack-zoom.png")" = 1200x330
chrome --screenshot="$SHOTS/names.png" --window-size=1200,250 "file://$work/n.html" >/dev/null
check "screenshot: the hostile names, build/tests/flame/names.png" \
	test "$(png "$SHOTS/names.png")" = 1200x250

# -- the page after its script ran: every frame of the folded lines, labelled
dom "$url" > "$work/frames"
tr ';' '\n' < "$work/folded" | sed 's/ [0-9]*$//' | sort -u > "$work/want"
awk -F'\t' '$1 != "svg" && $1 != "scripts" && $2 > 0 { print $1 }' "$work/frames" | sort -u \
	> "$work/out"
same "dom: a frame for every name of the folded lines" "$work/want" "$work/out"
check "dom: the widest frames labelled with their whole name" test \
	"$(frame ustack_lib_syscall | cut -f6)$(frame sample_middle | cut -f6)" = \
	ustack_lib_syscallsample_middle
check "dom: nothing zoomed, every frame shown" test \
	"$(grep -c $'\thidden\t' "$work/frames")" = 0

# -- a click on sample_then: it takes the whole width, its callees scale
# with it, its callers stay (dimmed), the rest is hidden
dom "$url#zoom=sample_then" > "$work/frames"
check "zoom: the page says it is zoomed to sample_then" \
	grep -qx $'svg\tdata-zoom=sample_then' "$work/frames"
check "zoom: sample_then the whole width" \
	test "$(frame sample_then | cut -f3-5)" = $'shown\t10.00\t1179.50'
check "zoom: its callee ustack_lib_raw the whole width too" \
	test "$(frame ustack_lib_raw | cut -f3-5)" = $'shown\t10.00\t1179.50'
check "zoom: its callers kept, dimmed" \
	test "$(frame sample_middle | cut -f3,7)" = $'shown\tf anc'
check "zoom: the getppid stack beside it hidden" \
	test "$(frame ustack_lib_syscall | cut -f3)" = hidden
dom "$url#zoom=sample_then&zoom=all" > "$work/frames"
check "zoom: a click on the root zooms back out" test \
	"$(grep -c $'\thidden\t' "$work/frames")$(grep $'^svg\tdata-zoom' "$work/frames")" = \
	$'0svg\tdata-zoom='
dom "$url#search=ustack_lib" > "$work/frames"
check "search: ustack_lib matches 4 of the 5 events" grep -qx $'svg\tdata-matched=4' "$work/frames"

# -- the SVG alone zooms too
dom "file://$work/k.svg#zoom=sample_then" > "$work/frames"
check "svg: opened alone, a click zooms" test \
	"$(frame sample_then | cut -f3-5)$(grep $'^svg\tdata-zoom' "$work/frames")" = \
	$'shown\t10.00\t1179.50svg\tdata-zoom=sample_then'

# -- hostile names: text in the page, no script of theirs
dom "file://$work/n.html" > "$work/frames"
check "hostile: the symbol '<script>alert(\"x\")</script>' is a frame's text" test \
	"$(frame '<script>alert("x")</script>' | cut -f6)" = '<script>alert("x")</script>'
check "hostile: the task name, its bad byte as U+FFFD" test \
	"$(awk -F'\t' '$1 != "scripts" && $2 == 1 { print $1 }' "$work/frames")" = '<i>&"'"'"'__\ufffd'
check "hostile: one script in the page, ours" grep -qx $'scripts\t1' "$work/frames"
finish
