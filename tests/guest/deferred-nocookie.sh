#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# An event whose cookie entry cannot be written is not written either:
# otherwise it would take the cookie the CPU's previous entry gives, which
# may be another kernel entry's. fail_function makes the cookie entry
# fail (trace_uu_write_cookie, half of the calls) while the event itself
# would fit: the case of a buffer with room for the event but not for both.
# Two tasks take turns on CPU 0, each closing a descriptor of its own from
# a stack of its own, so that every event needs a cookie entry; each task
# switches between two stacks from one round to the next, so that an event
# stitched to its task's previous kernel entry (the cookie the CPU's last
# entry of that task gives, when the other task's entry failed too) shows a
# wrong stack. Every recorded event must have the stack its tag names or
# none, with the event filtered (its cookie entry written at commit) and
# without.
# kernels: normal debug
# timeout: 600
. "$(dirname "$0")/../lib/result.sh"
. "$(dirname "$0")/../lib/ustack.sh"

FF=/sys/kernel/debug/fail_function
ROUNDS=1500
TAIL="sample_alt sample_then sample_middle sample_outer main"
# the tags (fd 1000001 to 1000004, hex f4241 to f4244) and their stacks
CHAIN_1="ustack_lib_raw sample_alt_a $TAIL"
CHAIN_2="ustack_lib_raw sample_alt_b $TAIL"
CHAIN_3="ustack_lib_raw sample_alt_a sample_alt_odd $TAIL"
CHAIN_4="ustack_lib_raw sample_alt_b sample_alt_odd $TAIL"

mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
if [ ! -d $FF ]; then
	skip "nocookie: no $FF (CONFIG_FAIL_FUNCTION)"
	finish
fi
# fail_function's kprobe hits an int3 here (kernel/trace has no ftrace
# call sites), and should_fail() draws its probability with
# get_random_u32_below() in that handler, which lockdep reports as an
# NMI-context use of crngs.lock (lib/fault-inject.c, with any probability).
if [ -e /proc/lockdep ]; then
	skip "nocookie: fail_function's random draw in its int3 handler is a lockdep report on a lockdep kernel (lib/fault-inject.c); the normal kernel runs this test"
	finish
fi
if ! grep -qw trace_uu_write_cookie $FF/injectable; then
	skip "nocookie: trace_uu_write_cookie cannot fail (a kernel without it)"
	finish
fi

inject_on() {
	tw $FF/inject trace_uu_write_cookie
	tw $FF/probability 50
	tw $FF/interval 1
	tw $FF/times -1
	tw $FF/verbose 0
}
inject_off() { echo > $FF/inject; }

# round NAME FILTER: the alternating run, with sys_enter_close filtered
# by FILTER (or not, "0"); checks on its tagged events.
round() {
	local name=$1 n na nb good none

	trace_clear
	tw $T/events/syscalls/sys_enter_close/filter "$2"
	tw $T/events/syscalls/sys_enter_close/enable 1
	tw $T/options/user_stacktrace_deferred 1
	inject_on
	tw $T/tracing_on 1
	taskset -c 0 "$SAMPLE" 1 alt $ROUNDS > /dev/null
	tw $T/tracing_on 0
	inject_off
	stitched | awk -F'|' 'index($4, "sys_close(fd: f424") == 1' > /tmp/nc
	n=$(wc -l < /tmp/nc)
	# half of the cookie entries fail: their events are gone
	check "nocookie $name: events whose cookie entry failed are dropped ($n of $((2 * ROUNDS)) recorded)" \
		test "$n" -gt $((ROUNDS / 4)) -a "$n" -lt $((2 * ROUNDS * 9 / 10))
	local tag chain nt good none all_good=0
	for tag in 1 2 3 4; do
		chain=CHAIN_$tag
		grep "fd: f424$tag)" /tmp/nc | cut -d'|' -f5 > /tmp/nc-t
		read -r nt good none <<< "$(CHAIN=${!chain} chain_count < /tmp/nc-t)"
		check "nocookie $name: fd 100000$tag events have their stack or none ($good exact, $none without, of $nt)" \
			test $((good + none)) = "$nt" -a "$nt" -gt 0
		all_good=$((all_good + good))
	done
	check "nocookie $name: most recorded events have their stack ($all_good of $n)" \
		test $((all_good * 10)) -ge $((n * 8))
	tw $T/events/syscalls/sys_enter_close/enable 0
	tw $T/events/syscalls/sys_enter_close/filter 0
}

tw $T/buffer_size_kb 8192
round unfiltered 0
round filtered 'fd >= 1000001'
inject_off
trace_clear
tw $T/buffer_size_kb 1408
finish
