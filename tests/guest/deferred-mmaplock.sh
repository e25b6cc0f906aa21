#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A process that holds its own mmap_lock as long as it likes (review
# 2026-11-28, N2): ustack-mmaplock reads a page of its own FUSE file, whose
# daemon never answers, with mmap_lock held for reading, and queues a
# writer behind it. Its thread C then makes traced system calls on CPU 0.
# The tracer's callback runs at C's return to user space, inside the SRCU
# section that clearing the option waits for, holding CPU 0's scratch
# space: it must not wait for that mmap_lock. So, while the lock is held:
#  - C returns to user space, its stacks written (frames as addresses: no
#    file could be named without the lock);
#  - another user's task on CPU 0 makes its traced calls too;
#  - clearing the option returns, within a second of the guest's clock
#    under instruction counting.
# Then the daemon answers and everything goes on.
# kernels: normal debug
# timeout: 300
# icount: shift=0,sleep=off
. "$(dirname "$0")/../lib/result.sh"
. "$(dirname "$0")/../lib/ustack.sh"

ML=$USTACK_PROGS/ustack-mmaplock
MNT=/tmp/mmaplock-mnt
NOBODY="setpriv --reuid=65534 --regid=65534 --clear-groups"

if [ ! -x "$ML" ]; then
	skip "deferred-mmaplock" "no $ML (make progs)"
	finish
fi
if [ ! -c /dev/fuse ]; then
	skip "deferred-mmaplock" "no /dev/fuse in this kernel (CONFIG_FUSE_FS)"
	finish
fi
mkdir -p $MNT
rm -f /tmp/ml.in /tmp/ml.cleared
mkfifo /tmp/ml.in

trace_clear
tw $T/events/syscalls/sys_enter_getppid/enable 1
tw $T/options/user_stacktrace_deferred 1
tw $T/tracing_on 1
"$ML" $MNT 0 < /tmp/ml.in > /tmp/ml.out 2>&1 &
mlpid=$!
exec 7> /tmp/ml.in
if ! wait_until 60 grep -q '^locked' /tmp/ml.out; then
	fail "the program holds its mmap_lock" "$(tr '\n' ' ' < /tmp/ml.out)"
	echo go >&7
	exec 7>&-
	wait $mlpid
	finish
fi
check "the program holds its mmap_lock, a writer queued behind ($(head -n 1 /tmp/ml.out))" \
	grep -q '^locked$' /tmp/ml.out

# another user's task on the same CPU keeps returning to user space
$NOBODY taskset -c 0 "$SAMPLE" 50 > /dev/null 2>&1 &
qpid=$!
if wait_until 60 sh -c "! kill -0 $qpid 2>/dev/null"; then
	pass "another user's task on CPU 0 makes its 50 traced calls meanwhile"
else
	fail "another user's task on CPU 0 makes its 50 traced calls meanwhile" "still running after 60 s"
fi
check "the holder's own thread on CPU 0 returns from its 5 traced calls" \
	wait_until 30 grep -qx 'C done' /tmp/ml.out

# clearing the option does not wait for the lock
t0=$(date +%s%N)
(echo 0 > $T/options/user_stacktrace_deferred; date +%s%N > /tmp/ml.cleared) &
if wait_until 30 test -s /tmp/ml.cleared; then
	us=$((($(cat /tmp/ml.cleared) - t0) / 1000))
	pass "clearing the option returns while the lock is held ($us us)"
	if [ -z "${USTACK_ICOUNT:-}" ]; then
		skip "clearing the option returns within 1 s" \
			"took $us us of a guest clock that follows the host's (not under -icount)"
	else
		check "clearing the option returns within 1 s ($us us of instruction-counted time)" \
			test "$us" -lt 1000000
	fi
else
	fail "clearing the option returns while the lock is held" "still waiting after 30 s"
fi

# the daemon answers: everything goes on
echo go >&7
exec 7>&-
wait $mlpid
rc=$?
tw $T/tracing_on 0
check "released, the program ends ($(tr '\n' ' ' < /tmp/ml.out))" \
	sh -c "[ $rc = 0 ] && grep -qx done /tmp/ml.out"
wait_until 30 test -s /tmp/ml.cleared || fail "the option is cleared at last"

# C's stacks were written, none lost; its frames are addresses or files
ctid=$(sed -n 's/^C tid //p' /tmp/ml.out)
n=$(stitched | awk -F'|' -v p="$ctid" '$1 == p && $4 ~ /getppid/ && $5 != "LOST" && $5 != "NOCOOKIE" && $5 != ""' | wc -l)
check "the holder's thread C: its 5 calls have their stacks (tid $ctid: $n)" test "$n" = 5
umount $MNT 2>/dev/null
finish
