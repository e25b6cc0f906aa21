#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# SFrame unwinding of deferred user stacks. The sample program built
# without frame pointers and with .sframe (-fomit-frame-pointer
# -Wa,--gsframe: SFrame V1 from Debian's gas), as a PIE executable and a
# shared library the kernel finds by itself: the exact chain, frame by
# frame, and the stack entry says SFrame found it. The frame-pointer build
# keeps its frame-pointer stack; an SFrame executable over a frame-pointer
# library mixes both in one stack. Interrupts over SFrame code, and a
# uprobe on a function's first instruction, get the exact chain too. A
# system call at the end of an FDE is looked up there.
# kernels: normal debug
# timeout: 300
. "$(dirname "$0")/../lib/result.sh"
. "$(dirname "$0")/../lib/ustack.sh"

SF=$USTACK_PROGS/sframe/ustack-sample
MIX=$USTACK_PROGS/sframe-mix/ustack-sample
STATS=/sys/kernel/debug/unwind_user/stats

if [ ! -x "$SF" ]; then
	skip "sframe" "no $SF (make progs)"
	finish
fi
[ -r $STATS ] || mount -t debugfs none /sys/kernel/debug 2>/dev/null

stat() { awk -v k="$1" '$1 == k { print $2 }' $STATS; }

# run_sample NAME PROG: 5 getppid calls of PROG, traced; its events in
# /tmp/$NAME, its stack entries' unwind= words in /tmp/$NAME.unwind
run_sample() {
	local name=$1 prog=$2

	trace_clear
	tw $T/events/syscalls/sys_enter_getppid/enable 1
	tw $T/options/user_stacktrace_deferred 1
	tw $T/tracing_on 1
	"$prog" 5 > /dev/null &
	pid=$!
	wait $pid
	tw $T/tracing_on 0
	stitched | awk -F'|' -v p=$pid '$1 == p' > /tmp/$name
	grep -- "-$pid .*user_unwind_stack:" $T/trace | grep -o 'unwind=[a-z+]*' |
		sort | uniq -c > /tmp/$name.unwind
}

# exact NAME WANT: every event has exactly $CHAIN, every stack says WANT
exact() {
	local name=$1 want=$2 n exact none

	read -r n exact none <<< "$(cut -d'|' -f5 /tmp/$name | chain_count)"
	check "$name: 5 events, each with exactly $CHAIN ($((n - exact)) wrong, $none without)" \
		test "$n" = 5 -a "$exact" = 5
	check "$name: every stack entry says unwind=$want ($(tr '\n' ' ' < /tmp/$name.unwind))" \
		test "$(awk '{print $2}' /tmp/$name.unwind)" = "unwind=$want"
}

added=$(stat sections_added)
run_sample sframe "$SF"
exact sframe sframe
# past main, libc has neither SFrame nor a table: its frame's caller is a
# frame-pointer guess from the register SFrame left, which says nothing
# (a zero there is no chain's end): the 5 stacks say they were cut
n=$(grep -- "-$pid .*user_unwind_stack:" $T/trace | grep -c ' truncated')
check "sframe: the 5 stacks, cut past libc's frame, say truncated ($n)" test "$n" = 5
check "sframe: the executable's and the library's sections were added" \
	test $(($(stat sections_added) - added)) -ge 2

run_sample fp "$SAMPLE"
exact fp fp

if [ -x "$MIX" ]; then
	run_sample mixed "$MIX"
	exact mixed sframe+fp
else
	skip "mixed" "no $MIX (make progs)"
fi

# A uprobe on the first instruction of the SFrame library's syscall
# function: the topmost frame's row at the function start.
LIB=$USTACK_PROGS/sframe/libustack-sample.so
off=$(USTACK_PROGS=$USTACK_PROGS/sframe lib_offset ustack_lib_syscall)
if syms=$(uprobe_entry_syms "$SF" "$LIB" "$off"); then
	check "uprobe on a function entry: '$syms'" test "$syms" = "$CHAIN"
else
	fail "uprobe on a function entry" "cannot add uprobe at $LIB:$off"
fi

# Timer interrupts over the spinning SFrame program: any instruction of
# sample_spin's loop is the topmost frame. It spins until a cpu-clock timer
# of its own has expired over the loop 40 times (ticks), not for a fixed
# work: a busy host gets few interrupts in one.
trace_clear
tw $T/events/timer/hrtimer_expire_entry/enable 1
tw $T/events/syscalls/sys_exit_write/enable 1
tw $T/options/user_stacktrace_deferred 1
tw $T/tracing_on 1
"$SF" 0 ticks 40 > /tmp/ticks.out 2>&1 &
pid=$!
wait $pid
tw $T/tracing_on 0
check "the SFrame program spun until its timer expired 40 times" test -z "$(grep ticks: /tmp/ticks.out)"
stitched | grep -v '^STACKS|' > /tmp/events
spin_check "interrupts over SFrame code carry the exact stack" $pid hrtimer_expire_entry 20

# The kernel keeps the frame rules it looked up (per CPU): 200 calls from
# one 18-frame SFrame stack look each frame up once per CPU, then find it
# kept. A run of call sites 16 bytes apart (bench_f0..f15) must not
# collide in the cache.
trace_clear
tw $T/events/syscalls/sys_enter_getppid/enable 1
tw $T/options/user_stacktrace_deferred 1
frames0=$(stat frames_sframe)
cached0=$(stat rules_cached)
tw $T/tracing_on 1
"$USTACK_PROGS/sframe/ustack-bench" 200 0 > /dev/null
tw $T/tracing_on 0
frames=$(($(stat frames_sframe) - frames0))
cached=$(($(stat rules_cached) - cached0))
check "rule cache: $cached of $frames SFrame frames found kept (at least 95%)" \
	test "$frames" -ge 3000 -a $((100 * cached)) -ge $((95 * frames))

# A system call that is the last instruction its FDE covers: the task in
# it is looked up at the system call, not in the next FDE (whose first row
# would give the saved frame pointer as the caller).
getppid_traced /tmp/out "$USTACK_PROGS/sframe/ustack-sframe-sysend"
n=0
bad=
while read -r frames; do
	syms=$(first_n 2 "$(symbols "$frames")")
	if [ "$syms" = "ustack_sysend_tail main" ]; then
		n=$((n + 1))
	else
		bad="'$syms' ($frames)"
	fi
done < <(stitched | awk -F'|' -v p=$pid '$1 == p && $4 ~ /getppid/ { print $5 }')
if [ "$(cat /tmp/out)" = "ustack-sframe-sysend: 3 calls" ] && [ "$n" = 3 ]; then
	pass "system call at the end of an FDE: the caller is main, 3 of 3"
else
	fail "system call at the end of an FDE: the caller is main, 3 of 3" \
		"$n of 3 ($(cat /tmp/out)); $bad"
fi

trace_clear
finish
