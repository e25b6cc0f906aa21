#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A consumer cancelled while a walk is in flight: ustack-uffd holds a
# task's deferred walk in a userfaultfd page fault, then clears the option
# (or removes the instance). A fault is the user's to hold, so the
# clearing must not wait for it: it returns at once, and the cancelled
# consumer's stack is then lost, and says so (never written into a removed
# instance); the others get the right frames once the page is back; the
# task's later events carry no stale cookie, and the option works again
# afterwards. Killing the task while its walk is held writes the frames
# below the page only.
# kernels: normal debug
# timeout: 300
# icount: shift=0,sleep=off
. "$(dirname "$0")/../lib/result.sh"
. "$(dirname "$0")/../lib/ustack.sh"

UFFD=$USTACK_PROGS/ustack-uffd
UFFD_CHAIN="uffd_raw uffd_inner uffd_mid uffd_outer uffd_top uffd_thread"

# cancel_check NAME: the lines ustack-uffd printed in /tmp/uffd.out say
# that ACTION returned while the walk was still held in the fault (the page
# not yet given back: decided by the order of the two, whatever the host's
# speed), within a second of the guest's clock, and succeeded. The second
# is checked where the guest's clock counts the guest's own instructions
# (QEMU -icount, "# icount:" above: run.sh boots this test so): there it
# does not grow when the host starves the guest. On a guest clock that
# follows the host's, the time is only reported.
cancel_check() {
	local us

	check "$1: the walk faults on the outer frame's page" grep -qx 'fault outer' /tmp/uffd.out
	us=$(sed -n 's/^action us //p' /tmp/uffd.out)
	if grep -qx 'action held yes' /tmp/uffd.out; then
		pass "$1: it returns while the walk is held (in ${us:-?} us)"
	else
		fail "$1: it returns while the walk is held" \
			"$(grep '^waiting\|^kstack\|^action' /tmp/uffd.out | tr '\n' ' ')"
	fi
	if [ -z "${USTACK_ICOUNT:-}" ]; then
		skip "$1: it returns within 1 s" \
			"took ${us:-?} us of a guest clock that follows the host's (not under -icount)"
	elif [ -n "$us" ] && [ "$us" -lt 1000000 ]; then
		pass "$1: it returns within 1 s ($us us of instruction-counted guest time)"
	else
		fail "$1: it returns within 1 s" "took ${us:-?} us of instruction-counted guest time"
	fi
	check "$1: it succeeds" grep -qx "action ret $2 errno 0" /tmp/uffd.out
	[ $uffd_rc = 0 ] || fail "$1: ustack-uffd" "exit $uffd_rc: $(tr '\n' ' ' < /tmp/uffd.out)"
}

# exit_stack DIR NR: the frames stitched to the walked thread's exit from
# system call NR in instance DIR, symbolized; LOST, NOCOOKIE or nothing.
exit_stack() {
	local tid frames

	tid=$(sed -n 's/^tid //p' /tmp/uffd.out)
	frames=$(stitched "$1" | awk -F'|' -v p="$tid" -v m="sys_exit: NR $2 " '$1 == p && index($4, m) { print $5 }' | tail -n 1)
	case "$frames" in
	""|LOST|NOCOOKIE) echo "$frames" ;;
	*) symbols "$frames" ;;
	esac
}

# chain_check NAME DIR NR: the exit from NR has the thread's whole stack.
chain_check() {
	local syms

	syms=$(exit_stack "$2" "$3")
	case "$syms" in
	"$UFFD_CHAIN"*) pass "$1" ;;
	*) fail "$1" "'$syms'" ;;
	esac
}

if [ ! -e /proc/sys/vm/unprivileged_userfaultfd ]; then
	skip "deferred-cancel" "no userfaultfd in this kernel (CONFIG_USERFAULTFD)"
	finish
fi

# 1. Clear the option of the top level while its callback is held.
trace_clear
tw $T/events/raw_syscalls/sys_exit/enable 1
tw $T/options/user_stacktrace_deferred 1
tw $T/tracing_on 1
"$UFFD" toggle $T/options/user_stacktrace_deferred > /tmp/uffd.out 2>&1
uffd_rc=$?
tw $T/tracing_on 0
cancel_check "option cleared" 2
check "option cleared: the option reads 0" test "$(cat $T/options/user_stacktrace_deferred)" = 0
chain_check "option cleared: the write before has its stack" $T 1
check "option cleared: the held walk's stack is lost, and says so" test "$(exit_stack $T 0)" = LOST
check "option cleared: the getppid after it carries no cookie" test "$(exit_stack $T 110)" = NOCOOKIE

# The consumer bit went back: set again, the option gives stacks.
trace_clear
tw $T/events/syscalls/sys_enter_getppid/enable 1
tw $T/options/user_stacktrace_deferred 1
traced_sample 3
n=$(stitched | awk -F'|' -v p=$pid '$1 == p && index($4, "getppid") && $5 != "LOST" && $5 != "NOCOOKIE"' | wc -l)
check "option set again: every getppid event has its stack" test "$n" = 3

# 2. Remove an instance with the option while its callback is held; the
# top level asked too, and gets the stack.
trace_clear
mkdir $T/instances/uffd || fail "mkdir instance uffd"
for d in $T $T/instances/uffd; do
	tw $d/events/raw_syscalls/sys_exit/enable 1
	tw $d/options/user_stacktrace_deferred 1
done
tw $T/tracing_on 1
"$UFFD" rmdir $T/instances/uffd > /tmp/uffd.out 2>&1
uffd_rc=$?
tw $T/tracing_on 0
cancel_check "instance removed" 0
check "instance removed: it is gone" test ! -d $T/instances/uffd
chain_check "instance removed: the top level gets the held walk's stack, all frames right" $T 0
chain_check "instance removed: and the getppid's after it" $T 110
[ -d $T/instances/uffd ] && rmdir $T/instances/uffd

# 3. Kill the task while its walk is held: the fault fails, the walk stops
# there, and the stack written has the frames below the page, no others.
trace_clear
tw $T/events/raw_syscalls/sys_exit/enable 1
tw $T/options/user_stacktrace_deferred 1
tw $T/tracing_on 1
"$UFFD" hold > /tmp/uffd.out 2>&1 &
upid=$!
wait_until 120 grep -q '^holding' /tmp/uffd.out
check "killed: the walk is held" grep -qx holding /tmp/uffd.out
kill -9 $upid
wait_until 120 test ! -d /proc/$upid
check "killed: the task is gone" test ! -d /proc/$upid
wait $upid 2>/dev/null
tw $T/tracing_on 0
check "killed: the stack ends at the held page" test "$(exit_stack $T 0)" = "uffd_raw uffd_inner uffd_mid uffd_outer"
tw $T/options/user_stacktrace_deferred 0
check "killed: the option clears afterwards" test "$(cat $T/options/user_stacktrace_deferred)" = 0
trace_clear
finish
