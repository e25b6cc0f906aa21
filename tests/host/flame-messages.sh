#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# ustack-flame says what is wrong in words of its own (review 2026-11-28,
# findings [10] and [11]): a file that is not a trace, or that libtracecmd
# cannot read, is said so, never with the errno libtracecmd left behind
# ("No such file or directory" of an internal lookup, "Unknown error -22");
# and a result with nothing in it (no user stacks, no such buffer, no event
# or task of the filters) says why in one line and exits 1, in every
# format. No root needed; trace-cmd makes the traces without user stacks.
. "$(dirname "$0")/../lib/result.sh"
. "$(dirname "$0")/../lib/flame.sh"

KS=$FLAME_FX/kstack.dat
flame_require "ustack-flame built"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
flame_setup "$work"

# said NAME MESSAGE ARGS...: ustack-flame ARGS exits 1, with MESSAGE as the
# last line on stderr, no strerror() of a negative errno, nothing written
said() {
	local name=$1 want=$2 rc

	shift 2
	flame "$@" > "$work/out" 2> "$work/err"
	rc=$?
	check "$name: exit 1 ($rc)" test $rc = 1
	check "$name: '$want' ($(tail -n 1 "$work/err" | head -c 200))" \
		test "$(tail -n 1 "$work/err")" = "ustack-flame: $want"
	check "$name: no 'Unknown error'" test -z "$(grep -i 'unknown error' "$work/err")"
	check "$name: nothing written" test ! -s "$work/out"
}

# -- files that are not traces, or that libtracecmd cannot read
: > "$work/empty.dat"
said "an empty file" "$work/empty.dat: empty, not a trace-cmd file" "$work/empty.dat"
head -c 3000 /dev/urandom | tr '\027' x > "$work/random.dat"
said "random bytes" "$work/random.dat: not a trace-cmd file (no trace.dat magic at its start)" \
	"$work/random.dat"
said "/dev/zero" "/dev/zero: a character device, not a trace file (a regular file)" /dev/zero
said "a directory" "$work: a directory, not a trace file (a regular file)" "$work"
said "a missing file" "$work/none.dat: No such file or directory" "$work/none.dat"
truncated="a trace-cmd file possibly truncated: its headers or CPU data end early"
damaged="a damaged trace-cmd file: its headers or CPU data cannot be read"
for n in 100 2000 8000; do
	head -c $n "$KS" > "$work/cut$n.dat"
	said "cut to $n bytes" "$work/cut$n.dat: $truncated" "$work/cut$n.dat"
done
# a byte of the version ("No such file or directory" before), one of the
# compressed headers ("Unknown error -22" before)
for at in 10 121; do
	cp "$KS" "$work/flip$at.dat"
	printf '\377' | dd of="$work/flip$at.dat" bs=1 seek=$at conv=notrunc status=none
	said "byte $at flipped" "$work/flip$at.dat: $damaged" "$work/flip$at.dat"
done
# a byte of the CPU data's options (review 2026-11-28 [3]): tracecmd_open()
# of libtracecmd 3.1.6 crashed in its own error path; libtracecmd printf()s
# "File possibly truncated" on stdout, which ustack_trace_open() keeps out
# of the output
cp "$KS" "$work/hdr.dat"
printf '\377' | dd of="$work/hdr.dat" bs=1 seek=8685 conv=notrunc status=none
said "byte 8685 flipped" "$work/hdr.dat: $truncated" "$work/hdr.dat"

# -- filters that leave nothing, in every format; an older output is kept
for f in folded perf speedscope svg html; do
	said "-e nosuch, -f $f" "no event of $KS matches -e 'nosuch'" -f $f -e nosuch "$KS"
done
said "-e twice" "no event of $KS matches -e 'a*' -e 'b:c'" -e 'a*' -e b:c "$KS"
said "-c nosuch" "no event of $KS is of a task named 'nosuch' (-c)" -c nosuch "$KS"
said "-p 1" "no event of $KS is of the task 1 (-p)" -f perf -p 1 "$KS"
said "-p 86 -c nosuch" "no event of $KS is of the task 86 named 'nosuch' (-p, -c)" \
	-p 86 -c nosuch "$KS"
said "-B nosuch" "no buffer -B 'nosuch' in $KS (its buffers: \"\")" -B nosuch "$KS"
said "two traces" "no event of the traces matches -e 'nosuch'" -e nosuch "$KS" "$KS"
echo old > "$work/keep.svg"
flame -f svg -o "$work/keep.svg" -e nosuch "$KS" 2> /dev/null
check "nothing to draw: exit 1, the older output kept" \
	test $? = 1 -a "$(cat "$work/keep.svg")" = old

# -- folded text with no stack in it
printf 'no count\n\n' > "$work/none.folded"
said "-F with no 'stack count' line" "$work/none.folded: no stacks (no line is \"stack count\")" \
	-F "$work/none.folded"

# -- traces without user stacks, several buffers, lost stacks
# (tests/fixtures/make-buffers-fixture.py)
if ! command -v trace-cmd > /dev/null; then
	skip "traces without user stacks" "no trace-cmd (to convert the fixture to version 6)"
	finish
fi
trace-cmd convert -i "$KS" -o "$work/src.dat" --file-version 6 --compression none \
	> /dev/null 2>&1
mk() { python3 "$USTACK_TOP/tests/fixtures/make-buffers-fixture.py" "$work/src.dat" "$@"; }
mk "$work/nostk.dat" --top nostacks
mk "$work/nofmt.dat" --top nostacks --no-ustack-formats
mk "$work/noev.dat" --top empty
mk "$work/buf.dat" --top stacks --instance inst=lost
no_user="has no user stacks (no user_unwind_* events): record with trace-cmd record -O user_stacktrace_deferred"
said "no user_unwind_* events, -K" "$work/nostk.dat $no_user" -K "$work/nostk.dat"
said "no user_unwind_* formats, -K" "$work/nofmt.dat $no_user" -K "$work/nofmt.dat"
said "no user_unwind_* events, -f svg -K" "$work/nostk.dat $no_user" -f svg -K "$work/nostk.dat"
flame "$work/nostk.dat" > "$work/out" 2> "$work/err"
rc=$?
check "no user stacks, kernel stacks: exit 0, written ($rc)" test $rc = 0 -a -s "$work/out"
check "no user stacks, kernel stacks: a warning" \
	grep -qF "warning: $work/nostk.dat has no user stacks" "$work/err"
said "no events" "no events in $work/noev.dat" "$work/noev.dat"
said "-B nosuch, the buffers listed" "no buffer -B 'x' -B 'y' in $work/buf.dat (its buffers: \"\", \"inst\")" \
	-B x -B y "$work/buf.dat"
said "-L, every stack lost" "the user stacks of all 5 events were lost, and -L leaves them out" \
	-L -B inst "$work/buf.dat"
flame -B inst "$work/buf.dat" > "$work/out" 2> "$work/err"
check "-B of a buffer with lost stacks: counted, exit $?, nothing said" \
	test -s "$work/out" -a ! -s "$work/err"
finish
