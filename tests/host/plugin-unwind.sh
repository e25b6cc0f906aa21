#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# trace-cmd report says when a stack rests on frame pointers (issue 37): a
# stack whose entry has flags 0x4 ends with " => [unwind=fp: frames found by
# frame pointers may be a guess]", 0xc with unwind=sframe+fp; a stack found
# by SFrame alone (0x8), or whose entry does not say (0, the committed
# trace), has no such line. On a trace made from the committed one with
# those flags (tests/lib/unwind.sh). No root.
. "$(dirname "$0")/../lib/result.sh"
. "$(dirname "$0")/../lib/plugin.sh"
. "$(dirname "$0")/../lib/unwind.sh"

plugin_require "unwind method in trace-cmd report" trace-cmd python3

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if ! out=$(unwind_fixture "$work" 2>&1); then
	fail "unwind fixture" "$out"
	finish
fi
report() { TRACEEVENT_PLUGIN_DIR=$PLUGIN_DIR trace-cmd report "$@" 2>/dev/null; }

# lasts FILE: the last line under each getppid event, "-" when it has none
lasts() {
	awk 'function out() { if (ev != "") print (last == "" ? "-" : last) }
	     /^ => / { last = $0; next }
	     { out(); ev = ""; last = "" }
	     / sys_(enter|exit)_getppid:/ { ev = $4 }
	     END { out() }' "$1"
}

FP=" => [unwind=fp: frames found by frame pointers may be a guess]"
MIXED=" => [unwind=sframe+fp: frames found by frame pointers may be a guess]"
FRAME=" => /usr/lib/x86_64-linux-gnu/libc.so.6+0x2724a"
for opts in "-O ustack_nosym" ""; do
	# shellcheck disable=SC2086
	report $opts -i "$work/unwind.dat" > "$work/out"
	printf '%s\n' "$FP" "$FP" "$FRAME" "$FRAME" "$MIXED" "$MIXED" "$FP" "$FP" > "$work/want"
	[ -z "$opts" ] && sed -i 's/^ => \/usr.*/-/' "$work/want"
	lasts "$work/out" > "$work/got"
	if [ -n "$opts" ]; then
		check "fp, sframe, sframe+fp, fp: the line under the stacks of frame pointers only" \
			diff "$work/want" "$work/got"
	else
		# symbolized: libc's frame names differ from machine to machine
		check "symbolized too: the same lines" \
			diff <(grep unwind= "$work/want") <(grep unwind= "$work/got")
	fi
done

# the frames are all still there, before the line
report -O ustack_nosym -i "$work/unwind.dat" > "$work/out"
check "the 7 frames of each stack are above the line" \
	test "$(grep -c '^ => /' "$work/out")" = 56

# with ustack_raw, under the stack entries themselves
report -O ustack_raw -O ustack_nosym -i "$work/unwind.dat" > "$work/raw"
check "ustack_raw: the line under the entries of flags 4 and c" \
	test "$(grep -A8 'user_unwind_stack:.* flags=[4c]$' "$work/raw" | grep -c 'unwind=')" = 3

# a trace whose entries do not say (flags 0): no line, as before
report -O ustack_nosym -i "$USTACK_TOP/tests/fixtures/plugin/sample.dat" > "$work/old"
check "flags 0: no unwind line" test "$(grep -c 'unwind=' "$work/old")" = 0
finish
