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
# Without that, the calls and the clearing wait for ever: the guest's
# timeout ends the test as a failure.
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
rm -f /tmp/ml.in /tmp/ml.outfifo /tmp/ml.cleared /tmp/ml.out
mkfifo /tmp/ml.in /tmp/ml.outfifo

# Every wait below blocks on what it waits for, with no timeout of its own:
# under instruction counting the guest's clock runs ahead while the guest
# waits for the host (9p), so a timed wait would give up early. A wait
# that never ends is the guest's timeout, a failure.
trace_clear
tw $T/events/syscalls/sys_enter_getppid/enable 1
tw $T/options/user_stacktrace_deferred 1
tw $T/tracing_on 1
"$ML" $MNT 0 < /tmp/ml.in > /tmp/ml.outfifo 2>&1 &
mlpid=$!
exec 7> /tmp/ml.in
exec 8< /tmp/ml.outfifo
# ml_line WANT: read the program's lines (kept in /tmp/ml.out) up to WANT
ml_line() {
	local line

	while IFS= read -r line <&8; do
		echo "$line" >> /tmp/ml.out
		case "$line" in
		$1*) return 0 ;;
		esac
	done
	return 1
}
if ! ml_line locked; then
	fail "the program holds its mmap_lock" "$(tr '\n' ' ' < /tmp/ml.out)"
	exec 7>&-
	wait $mlpid
	finish
fi
check "the program holds its mmap_lock, a writer queued behind ($(tail -n 1 /tmp/ml.out))" \
	grep -q '^locked$' /tmp/ml.out

# another user's task on the same CPU keeps returning to user space
$NOBODY taskset -c 0 "$SAMPLE" 50 > /dev/null 2>&1 &
wait $!
pass "another user's task on CPU 0 makes its 50 traced calls meanwhile"
check "the holder's own thread on CPU 0 returns from its 5 traced calls" ml_line 'C done'

# clearing the option does not wait for the lock
t0=$(date +%s%N)
(echo 0 > $T/options/user_stacktrace_deferred; date +%s%N > /tmp/ml.cleared) &
wait $!
us=$((($(cat /tmp/ml.cleared) - t0) / 1000))
pass "clearing the option returns while the lock is held ($us us)"
if [ -z "${USTACK_ICOUNT:-}" ]; then
	skip "clearing the option returns within 1 s" \
		"took $us us of a guest clock that follows the host's (not under -icount)"
else
	check "clearing the option returns within 1 s ($us us of instruction-counted time)" \
		test "$us" -lt 1000000
fi

# the daemon answers: everything goes on
echo go >&7
exec 7>&-
while IFS= read -r line <&8; do echo "$line" >> /tmp/ml.out; done
exec 8<&-
wait $mlpid
rc=$?
tw $T/tracing_on 0
check "released, the program ends ($(tr '\n' ' ' < /tmp/ml.out))" \
	sh -c "[ $rc = 0 ] && grep -qx done /tmp/ml.out"

# C's stacks were written, none lost; its frames are addresses or files
ctid=$(sed -n 's/^C tid //p' /tmp/ml.out)
n=$(stitched | awk -F'|' -v p="$ctid" '$1 == p && $4 ~ /getppid/ && $5 != "LOST" && $5 != "NOCOOKIE" && $5 != ""' | wc -l)
check "the holder's thread C: its 5 calls have their stacks (tid $ctid: $n)" test "$n" = 5
umount $MNT 2>/dev/null
finish
