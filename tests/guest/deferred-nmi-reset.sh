#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A request after the exit work loop must not leave the task pending in
# user space (the 2026-11-28 review's N3). switch_fpu_return() runs on the
# return to user space after the exit work loop, whenever the task was
# switched out; with the function tracer on it (and the option set), its
# event is a request made past the loop. The reset at the end of the
# return dropped that request's consumers but kept UNWIND_PENDING and the
# thread flag, so the task ran in user space pending: an NMI over it then
# made a fresh cookie, saw PENDING and raised no irq_work, and that cookie
# was served at the task's next kernel entry, at another place. The NMI's
# event and every event of that next entry shared one cookie, and the NMI
# got the later entry's stack.
#
# Two Python loops run on CPU 1, spinning in user space with a system
# call now and then (so they are switched out at ticks and return through
# switch_fpu_return() from entries whose first request is that event),
# and NMIs (sysrq 'l') hit them there. An NMI inside a system call shares
# the call's cookie, rightly (it comes after the call's sys_enter); one
# from user mode has a cookie of its own, served by the irq_work it
# raises. So no nmi_handler event may share its cookie with a sys_enter
# of the same task recorded after it: a system call always starts a new
# kernel entry. (A tick, by contrast, can come inside the irq_work's own
# entry, with interrupts on in the exit work: it shares that cookie
# rightly, so ticks prove nothing here.)
#
# Under TCG this did not reproduce N3: a kernel with the reset keeping
# UNWIND_PENDING (the bug put back) passed too, as sysrq 'l' NMIs run for
# milliseconds and a tick is always pending when they end, so the entry
# that serves the NMI's cookie comes at once either way. It stays as the
# invariant on both kernels. deferred-reset-pending.sh forces N3's cause
# (the flag left set in user space), and fails without the fix
# (unwind_drop_requests() clears the whole mask and the flag).
# kernels: normal
# timeout: 600
. "$(dirname "$0")/../lib/result.sh"
. "$(dirname "$0")/../lib/ustack.sh"

if [ ! -w /proc/sysrq-trigger ] || [ ! -d $T/events/nmi/nmi_handler ]; then
	skip "NMIs over tasks returning through switch_fpu_return" \
		"no /proc/sysrq-trigger or nmi:nmi_handler event"
	finish
fi
if ! grep -qx switch_fpu_return $T/available_filter_functions; then
	skip "NMIs over tasks returning through switch_fpu_return" \
		"switch_fpu_return cannot be traced here"
	finish
fi

trace_clear
kb0=$(cat $T/buffer_size_kb)
tw $T/buffer_size_kb 8192
tw $T/set_ftrace_filter switch_fpu_return
tw $T/current_tracer function
tw $T/events/nmi/nmi_handler/enable 1
tw $T/events/raw_syscalls/sys_enter/enable 1
tw $T/options/user_stacktrace_deferred 1
# the backtraces go to the log, not the (slow) console
read -r loglevel rest < /proc/sys/kernel/printk
echo 1 > /proc/sys/kernel/printk
tw $T/tracing_on 1
LOOP='import os, sys
print("running", flush=True)
while True:
    for i in range(20000):
        pass
    os.getppid()'
taskset -c 1 /usr/bin/python3 -c "$LOOP" > /tmp/spin1.out &
p1=$!
taskset -c 1 /usr/bin/python3 -c "$LOOP" > /tmp/spin2.out &
p2=$!
wait_until 120 sh -c 'grep -q running /tmp/spin1.out && grep -q running /tmp/spin2.out'
# from CPU 0, NMIs to CPU 1 while the two tasks take turns there
taskset -c 0 sh -c 'for i in $(seq 40); do echo l > /proc/sysrq-trigger; sleep 0.05; done'
kill -9 $p1 $p2
wait $p1 $p2 2>/dev/null
tw $T/tracing_on 0
echo "$loglevel" > /proc/sys/kernel/printk

awk -v with_ts=1 -f "$STITCH" $T/trace > /tmp/stitched
# the NMIs of the two tasks, and the system calls after them that share
# their cookie: "pid cookie nmi-time sys_enter-time"
awk -F'|' -v a=$p1 -v b=$p2 '
	($1 != a && $1 != b) || $3 == "" { next }
	index($4, "nmi_handler") { nmi[$1 "|" $3] = $6; n++; next }
	index($4, "sys_enter") {
		s++
		k = $1 "|" $3
		if ((k in nmi) && $6 + 0 > nmi[k] + 0)
			print $1, $3, nmi[k], $6
	}
	index($4, "switch_fpu_return") { f++ }
	END { print "NMIS", n + 0, f + 0, s + 0 > "/tmp/nmi.counts" }' /tmp/stitched > /tmp/nmi.shared
read -r _ nmi fpu sys < /tmp/nmi.counts
echo "NMI events of the tasks: $nmi; switch_fpu_return events: $fpu; system calls: $sys"
head -n 5 /tmp/nmi.shared
# the trace around the first one, to see which entries took the cookie
if [ -s /tmp/nmi.shared ]; then
	read -r _ ck t _ < /tmp/nmi.shared
	n=$(grep -n " ${t}: " $T/trace | head -n 1 | cut -d: -f1)
	[ -n "$n" ] && sed -n "$((n > 15 ? n - 15 : 1)),$((n + 40))p" $T/trace | cut -c1-200
fi
check "NMIs hit the tasks ($nmi), which returned through switch_fpu_return ($fpu) and made system calls ($sys)" \
	sh -c "test $nmi -ge 5 && test $fpu -ge 5 && test $sys -ge 10"
check "no NMI shares its cookie with a later system call of its task ($(grep -c . /tmp/nmi.shared))" \
	test ! -s /tmp/nmi.shared

trace_clear
echo > $T/set_ftrace_filter
tw $T/buffer_size_kb "$kb0"
finish
