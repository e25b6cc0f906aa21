#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# ustack-sframe serve's tables of big files made in a child (issue 39;
# sframe/ustack-sframe-work.c), without the kernel: --events FILE names two
# processes of this test, a fake tracefs directory takes the loads. A file
# bigger than --inline-max is converted in a child while the service goes
# on: with both events in one read, the processes scanned newest first
# (the big file's), the other process's small file is loaded before the
# big file, whose table comes at the end (with --inline-max above both
# sizes, the other way round); the child's
# table is stored in the cache byte for byte as the service's own
# conversion stores it, and loaded; a second run's child takes it from
# the cache; with --inline-max 0 every file goes to a child, one at a
# time, newest first, and each is loaded. With --convert-max (1 MiB) below
# the big file's size and --inline-max above it, the service hashes the
# big file and a child converts it; a second run takes it from the cache
# in the service. SIGTERM while a child converts
# ends the service and its child. Root only (map_files).
. "$(dirname "$0")/../lib/result.sh"

. "$(dirname "$0")/../lib/sframe-tool.sh"
lib=$O/utest/fixture-lib.so
big=$(readlink -f /usr/lib/x86_64-linux-gnu/libstdc++.so.6)
pids=
work=
serve_pid=

cleanup() {
	# shellcheck disable=SC2086
	[ -n "$pids" ] && kill $pids 2>/dev/null
	[ -n "$serve_pid" ] && kill -KILL "$serve_pid" 2>/dev/null
	[ -n "$work" ] && rm -rf "$work"
}
sf_built "$tool" "$lib"
if [ "$(id -u)" != 0 ]; then
	skip "ustack-sframe serve's children" "needs root (map_files)"
	finish
fi
if [ ! -f "$big" ]; then
	skip "ustack-sframe serve's children" "no libstdc++.so.6 (a file of 2 MiB to convert)"
	finish
fi
work=$(mktemp -d "$USTACK_TOP/build/tests/sframe-serve-work.XXXXXX") || exit 1
trap cleanup EXIT
cp "$big" "$work/libbig.so"
cp "$lib" "$work/libsmall.so"
chmod 644 "$work/libbig.so" "$work/libsmall.so"
LD_PRELOAD=$work/libbig.so sleep 300 &
a=$!
LD_PRELOAD=$work/libsmall.so sleep 300 &
b=$!
pids="$a $b"
if ! wait_until 10 sh -c "grep -q libbig.so /proc/$a/maps && grep -q libsmall.so /proc/$b/maps"; then
	fail "two processes mapping the copies" "LD_PRELOAD failed"
	finish
fi
mkdir -p "$work/tracefs/user_unwind_tables"
: > "$work/tracefs/user_unwind_tables/load"
export USTACK_TRACEFS=$work/tracefs
line() { echo "           sleep-$1    [001] .....   12.345678: sys_mmap(addr: 0, len: 2000, prot: 5, flags: 802, fd: 3, off: 0)"; }
# a's event the newest: a batch scans its processes newest first
{ line $b; line $a; } > "$work/events"

# serve OUT CACHE [OPTS...]: one run over the events
serve() {
	local out=$1 cache=$2 rc

	shift 2
	"$tool" serve --no-scan --status "$work/status" --events "$work/events" \
		--cache "$cache" "$@" > "$out" 2>&1
	rc=$?
	check "serve $*: exit $rc ($(tail -n 1 "$out"))" test $rc = 0
}
counter() { awk -v n="$1" '$1 == n { print $2 }' "$work/status"; }
# at OUT PATTERN: the line number of PATTERN's first match in OUT (0: none)
at() { grep -n -m1 -e "$2" "$1" | cut -d: -f1 | grep . || echo 0; }

serve "$work/child" "$work/cache-child" --inline-max 1048576
check "the big file goes to a child" grep -q "libbig.so: its table made in a child" "$work/child"
small=$(at "$work/child" "libsmall.so: loaded (mapped by pid $b)")
bigl=$(at "$work/child" "libbig.so: loaded (mapped by pid $a)")
check "the small file of the other process is loaded first (line $small), the big one after (line $bigl)" \
	test "$small" -gt 0 -a "$bigl" -gt "$small"
check "the big one converted in the child" grep -q "libbig.so: converted in a child" "$work/child"
n=$(grep -c ': converted in a child' "$work/child")
check "status: the $n conversions in a child (libc's too), none waiting" \
	test "$n" -ge 1 -a "$(counter in_child)" = "$n" -a "$(counter converting)" = 0
serve "$work/child2" "$work/cache-child" --inline-max 1048576
check "again: the child hashes the big file and takes its table from the cache" \
	sh -c "grep -q 'libbig.so: from the cache in a child' '$work/child2' &&
	       test $(counter converted) = 0 -a $(counter child_cache_hits) = $n"

serve "$work/inline" "$work/cache-inline" --inline-max 1073741824 --convert-max 1073741824
small=$(at "$work/inline" "libsmall.so: loaded")
bigl=$(at "$work/inline" "libbig.so: loaded")
check "converted in the service: the newest event's process, the big file, first (line $bigl), the small one after (line $small)" \
	test "$bigl" -gt 0 -a "$small" -gt "$bigl"
check "and no child" test "$(counter in_child)" = 0

# hashed in the service, not in the cache: converted in a child
serve "$work/conv" "$work/cache-conv" --inline-max 1073741824
small=$(at "$work/conv" "libsmall.so: loaded (mapped by pid $b)")
bigl=$(at "$work/conv" "libbig.so: loaded (mapped by pid $a)")
check "--convert-max (1 MiB): the big file, hashed here and not in the cache, converted in a child" \
	grep -q "libbig.so: converted in a child" "$work/conv"
check "meanwhile the other process's small file is loaded (line $small, the big one at $bigl)" \
	test "$small" -gt 0 -a "$bigl" -gt "$small"
serve "$work/conv2" "$work/cache-conv" --inline-max 1073741824
check "again: the big file's table from the cache, in the service, no child ($(counter cache_hits) hits)" \
	sh -c "grep -q 'libbig.so: loaded (mapped by pid $a)' '$work/conv2' &&
	       test $(counter in_child) = 0 -a $(counter converted) = 0 -a $(counter cache_hits) -ge 1"

id=$(readelf -n "$work/libbig.so" | awk '/Build ID/ { print $3 }')
check "the child's table is stored as the service's own" \
	cmp "$(ls "$work/cache-child/$id"-*.usft)" "$(ls "$work/cache-inline/$id"-*.usft)"

serve "$work/all" "$work/cache-all" --inline-max 0
n=$(grep -c ': converted in a child' "$work/all")
check "--inline-max 0: every file in a child ($n), each loaded" \
	test "$n" -ge 3 -a "$n" = "$(counter in_child)" -a "$(grep -c ': loaded' "$work/all")" = "$n"
# one batch queues them all while the first converts: the others newest first
sed -n 's/: its table made in a child.*//p' "$work/all" > "$work/queued"
{ head -n 1 "$work/queued"; tail -n +2 "$work/queued" | tac; } > "$work/expected"
sed -n 's/: converted in a child.*//p' "$work/all" > "$work/done"
check "the files waiting for the child are taken newest first ($(wc -l < "$work/queued") queued)" \
	cmp -s "$work/expected" "$work/done"

# SIGTERM while a child converts: a FIFO of events, kept open
mkfifo "$work/fifo"
"$tool" serve --no-scan --status "$work/status" --events "$work/fifo" --no-cache \
	--inline-max 0 > "$work/term" 2>&1 &
serve_pid=$!
exec 9> "$work/fifo"
line $a >&9
if wait_until 10 grep -q "libbig.so: its table made in a child" "$work/term"; then
	kill -TERM $serve_pid
	wait_until 10 sh -c "! kill -0 $serve_pid 2>/dev/null"
	check "SIGTERM during a child's conversion: the service stops" sh -c "! kill -0 $serve_pid 2>/dev/null"
	# a child has the service's command line
	check "and no child of it is left" sh -c "! pgrep -f -- '[-]-events $work/fifo' >/dev/null"
else
	fail "a child converts while the events stay open" "$(tail -n 3 "$work/term")"
fi
exec 9>&-
finish
