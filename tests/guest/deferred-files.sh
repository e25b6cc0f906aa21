#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The file table of user_stacktrace_deferred holds no reference to any
# kernel object. A traced program runs from a freshly mounted tmpfs, exits,
# and its filesystem unmounts; clearing the option, resetting the buffer
# and removing the instance afterwards report nothing on the console (the
# debug kernel's KASAN watches the freed superblock; with inodes pinned this
# was "VFS: Busy inodes after unmount" and a use after free). The stacks
# still name the files, exactly.
# kernels: normal debug
# timeout: 300
. "$(dirname "$0")/../lib/result.sh"
. "$(dirname "$0")/../lib/ustack.sh"

mnt=/tmp/ustack-tmpfs
I=$T/instances/files

mkdir -p $mnt
if ! mount -t tmpfs ustack $mnt; then
	skip "files" "cannot mount a tmpfs at $mnt"
	finish
fi
cp "$SAMPLE" "$USTACK_PROGS/libustack-sample.so" $mnt/ || fail "copy the sample to the tmpfs"

trace_clear
mkdir $I || fail "mkdir instance files"
for d in $T $I; do
	tw $d/events/syscalls/sys_enter_getppid/enable 1
	tw $d/options/user_stacktrace_deferred 1
	tw $d/tracing_on 1
done
$mnt/ustack-sample 3 > /dev/null &
pid=$!
wait $pid
for d in $T $I; do
	tw $d/tracing_on 0
done

for d in $T $I; do
	name=${d#$T}
	name=${name:-top}
	stitched $d | awk -F'|' -v p=$pid '$1 == p && index($4, "getppid") { print $5 }' > /tmp/frames
	check "$name: 3 getppid events" test "$(wc -l < /tmp/frames)" = 3
	check "$name: their frames name the files on the tmpfs" \
		test "$(grep -c " $mnt/ustack-sample+0x.* $mnt/ustack-sample+0x" /tmp/frames)" = 3
	read -r n exact none <<< "$(chain_count < /tmp/frames)"
	check "$name: every getppid's stack is exactly $CHAIN ($exact of $n)" test "$exact" = 3
done

# The program is gone: nothing keeps its filesystem.
if umount $mnt; then
	pass "the tmpfs unmounts once the program has exited"
else
	fail "the tmpfs unmounts once the program has exited" "umount: $?"
fi
check "the trace still names the unmounted files" grep -q "$mnt/ustack-sample" $I/trace

# Everything that would have dropped a pinned inode: nothing to report.
tw $I/options/user_stacktrace_deferred 0
echo > $I/trace
rmdir $I || fail "rmdir instance files"
tw $T/options/user_stacktrace_deferred 0
echo > $T/trace
check "clear, reset and rmdir after the unmount" test ! -d $I

# Set again, the option names files anew from the page cache.
tw $T/options/user_stacktrace_deferred 1
traced_sample 2
n=$(stitched | awk -F'|' -v p=$pid '$1 == p && index($4, "getppid") && index($5, "ustack-sample+0x")' | wc -l)
check "set again: both getppid events have named frames" test "$n" = 2
trace_clear
rmdir $mnt 2>/dev/null
finish
