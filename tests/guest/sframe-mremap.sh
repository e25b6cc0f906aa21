#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A library with .sframe moved by mremap() keeps its SFrame stacks (the
# 2026-11-28 review's N12). ustack-mremap (tests/progs/mremap.c: frame
# pointers, no .sframe) dlopen()s libustack-mremap.so (no frame pointers,
# .sframe), makes a getppid call through mr_entry -> mr_middle -> mr_leaf,
# then moves every mapping of the library by one delta with
# mremap(MREMAP_MAYMOVE | MREMAP_FIXED), keeping their layout, and makes
# the same call at the moved address. The kernel keeps, per mm, whether
# any SFrame section or table describes its code (sframe_mm_fp_only()):
# the move unmaps the old range, which removes the library's section, the
# mm's only one; mmap and mprotect mark the mm to be looked at again, but
# mremap did not, so the second walk followed frame pointers only and lost
# the frameless frames (mr_middle, mr_entry, main): the walk from mr_leaf
# went by main's %rbp to main's caller. With the fix the moved text is
# looked at again: its section, at its new place, gives the second call
# the first one's stack, frame by frame.
# kernels: normal debug
# timeout: 120
. "$(dirname "$0")/../lib/result.sh"
. "$(dirname "$0")/../lib/ustack.sh"

MR=$USTACK_PROGS/ustack-mremap
LIB=$USTACK_PROGS/sframe/libustack-mremap.so
TABLES=$T/user_unwind_tables
STATS=/sys/kernel/debug/unwind_user/stats
# the chain both calls must have, innermost first, then main's callers
WANT="mr_leaf mr_middle mr_entry main"

echo "kernel: $(uname -v)"
if [ ! -x "$MR" ] || [ ! -r "$LIB" ]; then
	fail "test programs built" "no $MR or $LIB (make progs)"
	finish
fi
[ -r $STATS ] || mount -t debugfs none /sys/kernel/debug 2>/dev/null
# no table: the library's section is the only thing describing the
# process's code, as the fp_only bookkeeping would have it
[ -d $TABLES ] && tw $TABLES/remove all

# moved NAME ARGS...: ustack-mremap LIB ARGS traced; prints both stacks
# and checks that the second is the first, the chain found by SFrame
moved() {
	local name=$1 before after

	shift
	getppid_traced /tmp/$name.out "$MR" "$LIB" "$@"
	echo "$name: ustack-mremap said: $(tr '\n' ' ' < /tmp/$name.out)"
	check "$name: ustack-mremap ran and moved the library (exit $rc)" \
		sh -c "test $rc = 0 && grep -q '^moved [1-9][0-9]* mappings by ' /tmp/$name.out"
	stitched | awk -F'|' -v p=$pid '$1 == p && index($4, "sys_getppid(") { print $5 }' \
		> /tmp/$name.frames
	grep -- "-$pid .*user_unwind_stack:" $T/trace | grep -o 'unwind=[a-z+]*' > /tmp/$name.unwind
	check "$name: two getppid calls, each with a stack ($(wc -l < /tmp/$name.frames) events)" \
		sh -c "test \$(wc -l < /tmp/$name.frames) = 2 && ! grep -qE '^(LOST|NOCOOKIE)\$' /tmp/$name.frames"

	# names only: glibc's symbols without their version
	before=$(symbols "$(sed -n 1p /tmp/$name.frames)" | sed 's/@@*[^ ]*//g')
	after=$(symbols "$(sed -n 2p /tmp/$name.frames)" | sed 's/@@*[^ ]*//g')
	echo "$name: before the move ($(sed -n 1p /tmp/$name.unwind)): $before"
	echo "$name:    frames:$(sed -n 1p /tmp/$name.frames)"
	echo "$name: after the move  ($(sed -n 2p /tmp/$name.unwind)): $after"
	echo "$name:    frames:$(sed -n 2p /tmp/$name.frames)"

	check "$name: before the move: $WANT ... ($before)" \
		test "$(first_n 4 "$before")" = "$WANT"
	check "$name: after the move: the same stack, frame by frame ($after)" \
		test "$after" = "$before"
	check "$name: after the move: the stack entry says SFrame found frames ($(sed -n 2p /tmp/$name.unwind))" \
		sh -c "sed -n 2p /tmp/$name.unwind | grep -q sframe"
}

moved mremap
# The control: the same move, then the text made not executable and
# executable again (mprotect marks the mm to be looked at again): shows
# that the section is found at its new place once the kernel looks.
moved mremap+mprotect mprotect

trace_clear
finish
