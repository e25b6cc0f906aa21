#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The trace-cmd plugin on a record whose length runs past its page (review
# 2026-11-28 [1], in the plugin): libtracecmd 3.1.6's kbuffer does not check
# a long event's length against its page, so the record it gives reaches
# past the page and past the end of the file's mapping. The plugin's
# stitcher reads ahead with a handle of its own, whose tep libtracecmd gives
# no page size: the record was copied whole (SIGBUS, where stock report
# prints the file). Now it is bounded by the file's page size, left out and
# counted ("1 damaged records left out" with -O ustack_stats), and report
# prints what it prints without the plugin. The trace is the committed
# fixture as version 6 without compression, one record of CPU 0's page made
# a long event (type_len 0) of 64 KiB.
. "$(dirname "$0")/../lib/result.sh"
. "$(dirname "$0")/../lib/plugin.sh"

FX=$USTACK_TOP/tests/fixtures
DAT=$FX/plugin/sample.dat

plugin_require "plugin on a damaged record" trace-cmd python3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir "$work/none"
trace-cmd convert -i "$DAT" -o "$work/src.dat" --file-version 6 --compression none >/dev/null 2>&1

# long SRC OUT N: the Nth data record (0 first) of CPU 0's first page, 64 KiB long
long() {
	python3 - "$@" <<'PY'
import struct
import sys

src, out, nth = sys.argv[1], sys.argv[2], int(sys.argv[3])
d = bytearray(open(src, 'rb').read())
at = d.index(b'flyrecord\0') + 10
page = struct.unpack_from('<Q', d, at)[0]
ts, commit = struct.unpack_from('<QQ', d, page)
pos, end, n = page + 16, page + 16 + commit, 0
while pos < end:
    head = struct.unpack_from('<I', d, pos)[0]
    type_len = head & 31
    if type_len == 0:
        start, size = pos + 8, struct.unpack_from('<I', d, pos + 4)[0] - 4
    elif type_len <= 28:
        start, size = pos + 4, type_len * 4
    else:        # a time extend (8 bytes) or stamp (16)
        start, size = pos + 4, 4 if type_len == 30 else 12
    if type_len <= 28:
        if n == nth:
            break
        n += 1
    pos = start + size
if pos >= end:
    sys.exit('no record %d in the first page' % nth)
# the record's header says "long event", its length word says 64 KiB
data = d[page + 16:pos] + struct.pack('<II', head & ~31, 0x10000) + d[start:end]
if len(data) > 4096 - 16:
    sys.exit('the page is full')
d[page:page + 4096] = struct.pack('<QQ', ts, len(data)) + data + bytes(4096 - 16 - len(data))
open(out, 'wb').write(d)
PY
}

with() { TRACEEVENT_PLUGIN_DIR=$PLUGIN_DIR trace-cmd report "$@"; }
without() { TRACEEVENT_PLUGIN_DIR=$work/none trace-cmd report "$@"; }

# the second and third records, events of the task that the plugin reads
# ahead for (report prints the first, a cookie entry, alone: the plugin
# reads nothing for it)
for n in 1 2; do
	name="record $n of 64 KiB"
	if ! long "$work/src.dat" "$work/long$n.dat" $n 2>"$work/err"; then
		fail "$name: made" "$(cat "$work/err")"
		continue
	fi
	without -i "$work/long$n.dat" >"$work/without" 2>/dev/null
	with -O ustack_stats -i "$work/long$n.dat" >"$work/with" 2>"$work/err"
	rc=$?
	if [ $rc -gt 128 ]; then
		fail "$name: report with the plugin" "killed by signal $((rc - 128))"
		continue
	fi
	check "$name: report with the plugin exits 0 ($rc)" test $rc = 0
	check "$name: counted ($(grep plugin_ustack "$work/err" | head -c 300))" \
		grep -q '; 1 damaged records left out$' "$work/err"
	# the lines of report without the plugin, in order, among the plugin's
	check "$name: report's own lines all there" \
		test "$(grep -vc '^ *=> ' "$work/with")" = "$(wc -l <"$work/without")"
done
finish
