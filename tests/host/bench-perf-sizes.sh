#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tests/bench/perf-data-sizes.py, make bench's perf part: the SAMPLE
# records of a perf.data file and the bytes of its SAMPLE and
# CALLCHAIN_DEFERRED records, on files made up here; a file that is not
# perf.data, or whose data section or records run past their end, is an
# error (exit 1), not a traceback or an endless loop.
. "$(dirname "$0")/../lib/result.sh"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
sizes=$USTACK_TOP/tests/bench/perf-data-sizes.py

# perfdata FILE [DATA_SIZE_DELTA] RECORD...: a perf.data header (104
# bytes: magic, header size, attr size, attrs, data, event_types; then
# the features bitmap), then the records "TYPE:SIZE" (SIZE bytes each,
# its header included). DATA_SIZE_DELTA is added to the data section's
# size in the header.
perfdata() {
	python3 - "$@" <<'PY'
import struct, sys
path, delta, recs = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
body = b''
for r in recs:
    t, n = (int(x) for x in r.split(':'))
    body += struct.pack('<IHH', t, 0, n) + b'\x55' * max(n - 8, 0)
hdr = struct.pack('<8sQQQQQQQQ', b'PERFILE2', 104, 136, 104, 0, 104, len(body) + delta, 0, 0)
hdr += b'\0' * (104 - len(hdr))
open(path, 'wb').write(hdr + body)
PY
}

# 3 samples (40, 48, 56 bytes), 2 deferred chains (32, 40), and an MMAP
# (1), a COMM (3) and a FINISHED_ROUND (68) that do not count
perfdata "$work/a" 0 1:64 3:40 9:40 22:32 9:48 68:8 9:56 22:40
out=$("$sizes" "$work/a" 2>&1)
check "3 samples, 216 bytes of samples and deferred chains ($out)" test "$out" = "3 216"

perfdata "$work/b" 0 1:64 3:40
out=$("$sizes" "$work/b" 2>&1)
check "no samples: 0 0 ($out)" test "$out" = "0 0"

head -c 200 /dev/zero | sed 's/^/PERFILE1/' > "$work/c"
"$sizes" "$work/c" > "$work/out" 2>&1
rc=$?
check "not a perf.data file: exit 1 ($rc)" test "$rc" = 1
check "and says so" grep -q "not a perf.data file" "$work/out"

perfdata "$work/d" 100 9:40 9:40
"$sizes" "$work/d" > "$work/out" 2>&1
rc=$?
check "a data section past the end: exit 1 ($rc)" test "$rc" = 1
check "and says so" grep -q "past the end" "$work/out"

perfdata "$work/e" 0 9:40 9:0 9:40
timeout 20 "$sizes" "$work/e" > "$work/out" 2>&1
rc=$?
check "a record of size 0: exit 1, no endless loop ($rc)" test "$rc" = 1

perfdata "$work/f" 0 9:40 9:4
"$sizes" "$work/f" > "$work/out" 2>&1
rc=$?
check "a record shorter than its header: exit 1 ($rc)" test "$rc" = 1
check "and no traceback" sh -c "! grep -q Traceback '$work/out'"
finish
