#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A file is known by its content too (kernel review 2026-11-28, N7). The
# trace named a file by device, inode number and generation only, kept
# until the buffer is reset: a library written over in place keeps all
# three, and its frames were named with the old file's id, so with the old
# build-id: wrong symbols. ustack-sample runs with its library A (build-id
# aaaa...), then the same path is written over with B (bbbb..., the same
# code), in place, and the sample runs again, in one trace: B's stacks
# must name a file entry with B's build-id.
# kernels: normal debug
# timeout: 200
. "$(dirname "$0")/../lib/result.sh"
. "$(dirname "$0")/../lib/ustack.sh"

A=$USTACK_PROGS/ident/a/libustack-sample.so
B=$USTACK_PROGS/ident/b/libustack-sample.so
if [ ! -f "$A" ] || [ ! -f "$B" ]; then
	skip "deferred-file-ident" "no $A or $B (make progs)"
	finish
fi
D=/tmp/ident
rm -rf $D
mkdir -p $D
cp "$USTACK_PROGS/ustack-sample" $D/
cp "$A" $D/libustack-sample.so
ino_a=$(stat -c %i $D/libustack-sample.so)

trace_clear
tw $T/events/syscalls/sys_enter_getppid/enable 1
tw $T/options/user_stacktrace_deferred 1
tw $T/tracing_on 1
$D/ustack-sample 5 > /tmp/ident-a.out 2>&1
rc_a=$?
# in place: the same inode, its generation kept
cat "$B" > $D/libustack-sample.so
$D/ustack-sample 5 > /tmp/ident-b.out 2>&1
rc_b=$?
tw $T/tracing_on 0
check "both runs ($(cat /tmp/ident-a.out) / $(cat /tmp/ident-b.out))" \
	test "$rc_a$rc_b" = 00
check "the library was written over in place" \
	test "$(stat -c %i $D/libustack-sample.so)" = "$ino_a"

files=$(grep -o 'user_unwind_file: id=[0-9]* build_id=[0-9a-f]* path=/tmp/ident/libustack-sample.so' \
	$T/trace | sed 's/.*id=\([0-9]*\) build_id=\([0-9a-f]*\).*/\1 \2/' | sort -u)
echo "file entries of the library: $(echo $files)"
id_a=$(echo "$files" | awk '$2 ~ /^aaaa/ { print $1 }' | sort -u)
id_b=$(echo "$files" | awk '$2 ~ /^bbbb/ { print $1 }' | sort -u)
check "A named, with its build-id (id '$id_a')" test -n "$id_a"
check "B named, with its own build-id (id '$id_b')" test -n "$id_b"
check "two ids, one a file ($id_a, $id_b)" \
	test -n "$id_a" -a -n "$id_b" -a "$id_a" != "$id_b"
trace_clear
rm -rf $D
finish
