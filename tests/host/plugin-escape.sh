#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# What the trace-cmd plugin prints from a trace and its files goes to a
# terminal: on names.dat (tests/fixtures/flame/, made by
# make-flame-fixture.sh), whose file name holds a control character and a
# byte that is not UTF-8, and a symbol (from the committed debug files) a
# control character and a lone UTF-8 lead byte, the plugin's text (the
# frames under the events, the entries' text) is UTF-8 with no control
# character: as in ustack-flame's plain text, "_" and U+FFFD stand in.
# The comm column is report's own, not checked. No root, no tracefs.
. "$(dirname "$0")/../lib/result.sh"
. "$(dirname "$0")/../lib/plugin.sh"

FX=$USTACK_TOP/tests/fixtures/flame
NAMES=$FX/names.dat

plugin_require "plugin output escaped" trace-cmd python3
if [ -e /tmp/ustack-fixture ]; then
	skip "plugin output escaped" "/tmp/ustack-fixture exists here: the test needs it absent"
	finish
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for f in "$FX"/*.debug; do
	b=$(basename "$f" .debug)
	mkdir -p "$work/debug/.build-id/${b:0:2}"
	cp "$f" "$work/debug/.build-id/${b:0:2}/${b:2}.debug"
done

report() {
	TRACEEVENT_PLUGIN_DIR=$PLUGIN_DIR trace-cmd report -O ustack_debug_dir="$work/debug" \
		"$@" -i "$NAMES" 2> "$work/err"
}

# clean FILE: the plugin's text in FILE (lines " => ...", and what follows
# the event name on an event's line) is UTF-8 without control characters;
# says the first bad line
clean() {
	python3 - "$1" <<'PY'
import re, sys
n = 0
for raw in open(sys.argv[1], "rb").read().split(b"\n"):
    if raw.startswith(b" => "):
        text = raw
    else:
        m = re.search(rb"\[\d+\]\s+\d+\.\d+: [^:]+:(.*)$", raw)
        if not m:
            continue
        text = m.group(1)
    n += 1
    try:
        s = text.decode("utf-8", errors="strict")
    except UnicodeDecodeError:
        sys.exit("not UTF-8: %r" % raw)
    if any(c < " " and c != "\t" or c == "\x7f" for c in s):
        sys.exit("a control character: %r" % raw)
if n < 10:
    sys.exit("only %d lines of the plugin" % n)
PY
}

PATH_ESC=$'/tmp/ustack-fixture/<i>&"\';_\xef\xbf\xbd'

report > "$work/out"
check "symbolized: UTF-8, no control character in the plugin's text" clean "$work/out"
check "symbolized: the hostile symbol and path escaped" \
	grep -qxF " => a;b&c'd"$'\xef\xbf\xbd'"(_</text>+0x9 ($PATH_ESC)" "$work/out"
check "user_unwind_file: the path escaped" grep -qF "id=1 path=$PATH_ESC" "$work/out"
check "symbolized: the frames under each event, nothing on stderr" \
	test "$(grep -c '^ => ' "$work/out")" -gt 4 -a ! -s "$work/err"

report -O ustack_nosym > "$work/nosym"
check "ustack_nosym: UTF-8, no control character in the plugin's text" clean "$work/nosym"
check "ustack_nosym: the path escaped" grep -qxF " => $PATH_ESC+0x11c4" "$work/nosym"

report -O ustack_raw -O ustack_srcline -O ustack_inlines > "$work/raw"
check "ustack_raw, srcline, inlines: UTF-8, no control character in the plugin's text" \
	clean "$work/raw"
check "ustack_raw: the hostile symbol escaped under the stack entry" \
	grep -qF " => a;b&c'd"$'\xef\xbf\xbd'"(_</text>+0x9" "$work/raw"

finish
