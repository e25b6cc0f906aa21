#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A damaged trace file is said, not crashed on: the libtracefs-ext examples
# (build/libtracefs-ext/examples/) on kstack.dat (tests/fixtures/flame/)
# with the bytes of review 2026-11-28 changed. Two bytes of an event's
# length make a record of 1.95 GB in a 4 KiB page ([1]: the stitcher copied
# it); a byte of the CPU data's offsets ([3]) and a cut in the offset of
# the first options section make libtracecmd 3.1.6's tracecmd_open() crash
# (ustack_trace_open() is used instead). Each run must end without a
# signal, with its message naming the file. No root.
. "$(dirname "$0")/../lib/result.sh"

EXAMPLES=$USTACK_TOP/build/libtracefs-ext/examples
KSTACK=$USTACK_TOP/tests/fixtures/flame/kstack.dat
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

for e in stitch fold lookup; do
	if [ ! -x "$EXAMPLES/$e" ]; then
		fail "examples built" "${EXAMPLES#"$USTACK_TOP"/}/$e missing (make libtracefs-ext)"
		finish
	fi
done

# mutate OUT OFFSET=BYTE... [cut=LENGTH]: kstack.dat with those bytes, maybe cut
mutate() {
	python3 - "$KSTACK" "$@" <<'PY'
import sys
data = bytearray(open(sys.argv[1], 'rb').read())
out = sys.argv[2]
for arg in sys.argv[3:]:
    key, value = arg.split('=')
    if key == 'cut':
        data = data[:int(value)]
    else:
        data[int(key)] = int(value, 0)
open(out, 'wb').write(data)
PY
}

mutate "$work/record.dat" 8349=0xff 8384=0
mutate "$work/cpu-data.dat" 8685=0xff
mutate "$work/options.dat" cut=29

# run NAME WANT-STATUS WANT-MESSAGE EXAMPLE ARGS...: its exit status (no
# signal: 128 + the signal's number) and a line of its stderr (if not "")
run() {
	local name=$1 want=$2 msg=$3 rc

	shift 3
	"$EXAMPLES/$@" >"$work/out" 2>"$work/err"
	rc=$?
	if [ $rc -gt 128 ]; then
		fail "$name" "killed by signal $((rc - 128)): $(tail -n 2 "$work/err" | tr '\n' ' ')"
	elif [ $rc != "$want" ]; then
		fail "$name" "exit status $rc, want $want: $(tail -n 2 "$work/err" | tr '\n' ' ')"
	elif [ -n "$msg" ] && ! grep -qF -- "$msg" "$work/err"; then
		fail "$name" "no \"$msg\" on stderr: $(tail -n 2 "$work/err" | tr '\n' ' ')"
	else
		pass "$name"
	fi
}

run "stitch: a record of 1.95 GB left out, said" 0 \
	"stitch: $work/record.dat: damaged records left out: 1" stitch "$work/record.dat"
check "stitch: the events before it printed" grep -q 'sys_enter_write' "$work/out"
run "stitch -f: a record of 1.95 GB left out" 0 "damaged records left out: 1" \
	stitch -f "$work/record.dat"
run "fold: a record of 1.95 GB, no crash" 0 "" fold "$work/record.dat"
run "lookup: a record of 1.95 GB, no crash" 0 "" lookup "$work/record.dat"

for e in stitch fold lookup; do
	run "$e: CPU data past the end: truncated" 1 "$e: $work/cpu-data.dat: a trace-cmd file possibly truncated" \
		$e "$work/cpu-data.dat"
	run "$e: cut in the options offset: truncated" 1 "$e: $work/options.dat: a trace-cmd file possibly truncated" \
		$e "$work/options.dat"
done
run "stitch: no such file" 1 "stitch: $KSTACK.missing: No such file or directory" \
	stitch "$KSTACK.missing"
: >"$work/empty.dat"
run "stitch: an empty file" 1 "stitch: $work/empty.dat: not a trace-cmd file" \
	stitch "$work/empty.dat"
finish
