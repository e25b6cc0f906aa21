#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Deferred stacks across exec and exit, events in interrupt and NMI context
# and of kernel threads, and the option toggled, instances removed and tasks
# killed while stacks are pending: right stack or none, never a wrong one,
# no crash (the debug kernel's KASAN, lockdep and kmemleak watch too).
# kernels: normal debug
# timeout: 600
. "$(dirname "$0")/../lib/result.sh"
. "$(dirname "$0")/../lib/ustack.sh"

# syscall_stacks PID NR: the distinct frames stitched to raw syscall NR of PID
syscall_frames() {
	awk -F'|' -v p="$1" -v m="NR $2 " -v e="$3" '$1 == p && index($4, m) && index($4, e) {print $3 "|" $5}' /tmp/stitched
}

trace_clear
tw $T/events/raw_syscalls/sys_enter/enable 1
tw $T/events/raw_syscalls/sys_exit/enable 1
tw $T/options/user_stacktrace_deferred 1

# exec: the events before the point of no return have the old program's
# stack; those after it a new cookie and the new program's.
tw $T/tracing_on 1
"$SAMPLE" 1 exec /bin/true &
pid=$!
wait $pid
tw $T/tracing_on 0
stitched > /tmp/stitched
# the last execve of $pid is the sample's own (the first is the shell's)
before=$(syscall_frames $pid 59 sys_enter | tail -n 1)
after=$(syscall_frames $pid 59 sys_exit | tail -n 1)
syms=$(symbols "${before#*|}")
case "$syms" in
*"ustack_lib_raw sample_then sample_middle sample_outer main"*) pass "exec: execve's entry event has the old program's stack" ;;
*) fail "exec: execve's entry event has the old program's stack" "$before: $syms" ;;
esac
if [ "${before%%|*}" != "${after%%|*}" ] && [ -n "${after%%|*}" ] &&
   ! echo "$after" | grep -q ustack-sample && echo "$after" | grep -q '+0x'; then
	pass "exec: a new cookie and the new program's stack after the exec"
else
	fail "exec: a new cookie and the new program's stack after the exec" "before '$before' after '$after'"
fi

# exit: the stack asked for by exit_group is written before the mm goes.
trace_clear
tw $T/events/raw_syscalls/sys_enter/enable 1
tw $T/options/user_stacktrace_deferred 1
tw $T/tracing_on 1
"$SAMPLE" 1 exit &
pid=$!
wait $pid
tw $T/tracing_on 0
stitched > /tmp/stitched
last=$(syscall_frames $pid 231 sys_enter | tail -n 1)
syms=$(symbols "${last#*|}")
case "$syms" in
*"ustack_lib_raw sample_then sample_middle sample_outer main"*) pass "exit: exit_group's stack is written" ;;
*) fail "exit: exit_group's stack is written" "$last: $syms" ;;
esac

# other_stacks: events that carry the cookie of a stack of another pid
other_stacks() {
	awk -F'|' 'NR == FNR { if ($1 == "STACKS") owner[$2] = $4; next }
		$3 in owner && $1 != owner[$3] {
			print "pid " $1 " has pid " owner[$3] "s cookie " $3
		}' /tmp/stitched /tmp/events | head -n 3
}

# Interrupts over a spinning task, and kernel threads.
trace_clear
tw $T/events/timer/hrtimer_expire_entry/enable 1
tw $T/events/syscalls/sys_exit_write/enable 1
tw $T/events/sched/sched_switch/enable 1
tw $T/events/sched/sched_wakeup/enable 1
tw $T/options/user_stacktrace_deferred 1
tw $T/tracing_on 1
# It spins until a cpu-clock timer of its own has expired over the loop 40
# times (ticks), not for a fixed work: a busy host gets few interrupts in one.
"$SAMPLE" 0 ticks 40 > /tmp/ticks.out 2>&1 &
pid=$!
wait $pid
tw $T/tracing_on 0
check "the task spun until its timer expired 40 times" test -z "$(grep ticks: /tmp/ticks.out)"
stitched > /tmp/stitched
grep -v '^STACKS|' /tmp/stitched > /tmp/events
# Interrupts over the task carry the task's cookie and the stack of that
# entry: while it spins, the known chain. Events of other pids never get
# its stacks.
spin_check "timer interrupts over the spinning task carry its stack" $pid hrtimer_expire_entry 20
check "no event carries another task's stack" test -z "$(other_stacks)"
kt=0
bad=
for p in $(cut -d'|' -f1 /tmp/events | sort -u); do
	[ "$p" = 0 ] || { [ -d /proc/$p ] && [ -z "$(tr -d '\0' < /proc/$p/cmdline 2>/dev/null)" ]; } || continue
	kt=$((kt + $(awk -F'|' -v p="$p" '$1 == p' /tmp/events | wc -l)))
	c=$(awk -F'|' -v p="$p" '$1 == p && $5 != "NOCOOKIE"' /tmp/events | head -n 1)
	[ -n "$c" ] && bad="$bad kthread $p: $c;"
done
if [ "$kt" -gt 0 ] && [ -z "$bad" ]; then
	pass "kernel threads' and idle's events ($kt) carry no cookie"
else
	fail "kernel threads' and idle's events ($kt) carry no cookie" "$bad"
fi

# NMIs over a spinning task: sysrq 'l' sends every other CPU an NMI, whose
# nmi:nmi_handler events are recorded in NMI context. They ask for the
# stack through irq_work and must carry the task's cookie and the stack of
# the spin loop, like the timer interrupts above.
if [ ! -w /proc/sysrq-trigger ] || [ ! -d $T/events/nmi/nmi_handler ]; then
	skip "NMIs over the task carry its stack" "no /proc/sysrq-trigger or nmi:nmi_handler event"
else
	trace_clear
	tw $T/events/nmi/nmi_handler/enable 1
	tw $T/events/syscalls/sys_exit_write/enable 1
		tw $T/options/user_stacktrace_deferred 1
	# the backtraces go to the log, not the (slow) console
	read -r loglevel rest < /proc/sys/kernel/printk
	echo 1 > /proc/sys/kernel/printk
	tw $T/tracing_on 1
	taskset -c 1 "$SAMPLE" 0 spin 100000 > /tmp/spin.out &
	pid=$!
	# it prints, then spins
	wait_until 120 grep -q calls /tmp/spin.out
	# from CPU 0, NMIs to CPU 1 while the task spins there
	taskset -c 0 sh -c 'for i in 1 2 3 4 5 6 7 8 9 10; do
		echo l > /proc/sysrq-trigger; sleep 0.1; done'
	kill -9 $pid
	wait $pid 2>/dev/null
	tw $T/tracing_on 0
	echo "$loglevel" > /proc/sys/kernel/printk
	stitched > /tmp/stitched
	grep -v '^STACKS|' /tmp/stitched > /tmp/events
	spin_check "NMIs over the spinning task carry its stack" $pid nmi_handler 5 tail
	check "no event in NMI carries another task's stack" test -z "$(other_stacks)"
fi

# Stress: toggle the option, add and remove instances, kill tasks, all while
# tasks make system calls.
trace_clear
tw $T/events/raw_syscalls/sys_enter/enable 1
tw $T/tracing_on 1
( for i in $(seq 1 40); do "$SAMPLE" 20 > /dev/null; done ) &
load=$!
( for i in $(seq 1 15); do "$SAMPLE" 0 spin 1000 > /dev/null & k=$!; sleep 0.05; kill -9 $k; wait $k; done ) 2>/dev/null &
killer=$!
for i in $(seq 1 20); do
	echo 1 > $T/options/user_stacktrace_deferred
	mkdir $T/instances/s$i
	echo 1 > $T/instances/s$i/events/raw_syscalls/sys_enter/enable
	echo 1 > $T/instances/s$i/options/user_stacktrace_deferred
	"$SAMPLE" 2 exec /bin/true
	echo 0 > $T/options/user_stacktrace_deferred
	[ $((i % 3)) = 0 ] && echo 0 > $T/instances/s$i/options/user_stacktrace_deferred
	[ $i -gt 1 ] && rmdir $T/instances/s$((i - 1))
done
wait $load $killer
rmdir $T/instances/s20
pass "stress: toggles, instance removal, exec and kill while stacks pending"
trace_clear
finish
