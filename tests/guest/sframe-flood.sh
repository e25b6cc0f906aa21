#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# /dev/sframe as an unprivileged user who wants to hurt the machine
# (review 2026-11-28, N1 and N9):
#  - 50,000 one-byte ranges of an untouched PROT_READ|PROT_EXEC anonymous
#    mapping: refused (whole pages of text only), and the kernel lives;
#  - a million registrations: at most the per-mm cap succeed, the rest get
#    ENOSPC, and SUnreclaim stays flat (the entries are charged to the
#    caller's memory cgroup, the per-mm cap bounds them);
#  - the most a process may register, torn down every way an mm loses its
#    entries: exit, fork (the child's copies, then the parent's), a partial
#    munmap then the rest, exec, two threads registering at once; on the
#    debug kernel (KASAN, lockdep, kmemleak) any report fails the test;
#  - without /dev/sframe or any cap: 50,000 adjacent executable mappings of
#    one file, each an entry of the mm's tree once a traced walk looked at
#    them, then the process exits: the tree is freed after an RCU grace
#    period (the maple tree's RCU free walk took a node's metadata for a
#    child and crashed in ksoftirqd before its fix);
#  - the teardown is linear: registering and unmapping the most entries a
#    process may have takes at most 8 times the CPU time of a quarter of
#    them, under instruction counting (a limit in ms of the guest's clock
#    failed on the debug kernel under load, as the host's speed set it;
#    the guest's clock itself jumps over idle waits).
# kernels: normal debug
# timeout: 400
# icount: shift=0,sleep=off
. "$(dirname "$0")/../lib/result.sh"
. "$(dirname "$0")/../lib/ustack.sh"
. "$(dirname "$0")/../lib/sframe-reg.sh"

NOBODY="setpriv --reuid=65534 --regid=65534 --clear-groups"
mkdir -p /tmp/nobody && chmod 777 /tmp/nobody
# sframe_add_section()'s SFRAME_MAX_SECTIONS (the uapi header says it)
MAX=1024
PAGE=4096

unreclaim() { awk '$1 == "SUnreclaim:" { print $2 }' /proc/meminfo; }

# flood NAME N SIZE SHAPE: ustack-sframe-reg flood as nobody, out in /tmp/NAME.out
flood() {
	local name=$1
	shift
	(cd /tmp/nobody && $NOBODY "$REG" flood "$@") > /tmp/$name.out 2>&1
	echo $? >> /tmp/$name.out
}

# field NAME WORD: the number after WORD on the flood line of run NAME
field() { awk -v w="$2" '$1 == "flood" { for (i = 2; i < NF; i++) if ($i == w) print $(i + 1) }' /tmp/$1.out; }

# ---- a big tree, freed under RCU (no /dev/sframe needed) ----
if [ -x "$REG" ]; then
	head -c 4096 /dev/zero > /tmp/nobody/page
	chmod 644 /tmp/nobody/page
	getppid_traced /tmp/mapflood.out $NOBODY "$REG" mapflood 50000 /tmp/nobody/page
	check "mapflood: 50,000 executable mappings made and walked ($(head -c 200 /tmp/mapflood.out))" \
		test "$rc" = 0
	n=$(stitched | awk -F'|' -v p=$pid '$1 == p && $4 ~ /getppid/ && $5 != ""' | wc -l)
	check "mapflood: its 3 system calls have stacks ($n)" test "$n" -ge 3
	# the RCU callbacks that free the tree run within a few grace periods
	sleep 2
	echo "mapflood: the kernel is alive after the tree was freed"
fi

sr_ready

# ---- one-byte ranges: refused ----
flood bytes 50000 1 exit
check "50,000 one-byte ranges: every one refused with EINVAL ($(head -n 1 /tmp/bytes.out))" \
	test "$(field bytes einval)" = 50000
check "50,000 one-byte ranges: the program exited normally" test "$(tail -n 1 /tmp/bytes.out)" = 0

# ---- a million registrations: the cap, and no kernel memory growth ----
sync; echo 2 > /proc/sys/vm/drop_caches
before=$(unreclaim)
flood million 1000000 $PAGE exit
after=$(unreclaim)
ok=$(field million ok)
echo "million: $(head -n 1 /tmp/million.out); SUnreclaim $before -> $after kB"
check "a million registrations: $ok succeed, at most the cap ($MAX)" test "${ok:-0}" -le "$MAX"
check "a million registrations: the rest get ENOSPC" \
	test "$(field million enospc)" = $((1000000 - ${ok:-0}))
check "a million registrations: SUnreclaim grew by less than 4 MB ($before -> $after kB)" \
	test $((after - before)) -lt 4096

# ---- the most a process may register, torn down every way ----
for shape in exit fork munmap exec threads; do
	flood $shape $MAX $PAGE $shape
	check "$shape: $MAX page-sized registrations all succeed ($(head -n 1 /tmp/$shape.out))" \
		test "$(field $shape ok)" = "$MAX"
	check "$shape: the program exited normally ($(tail -n 3 /tmp/$shape.out | tr '\n' ' '))" \
		test "$(tail -n 1 /tmp/$shape.out)" = 0
done
check "fork: the child ran" grep -qx 'child ok' /tmp/fork.out
check "exec: the new program ran" grep -q '^ustack-sframe-reg: 1 calls' /tmp/exec.out

# ---- linear teardown ----
# under instruction counting (the guest's clock counts its instructions, so
# the host's load and the debug kernel's speed do not matter): four times
# the sections take at most 8 times as long (linear: about 4; the old
# quadratic erase: about 16)
# took N: the CPU ms (user + system, of the process and its children) of
# registering and unmapping N sections. CPU time, not the guest's clock:
# with sleep=off the clock jumps over the time the guest waits idle (the
# program's pages read over 9p from a busy host), and one run so measured
# took 31 s for 1024 sections against 0.27 s for 256.
took() {
	local TIMEFORMAT='%3U %3S' t

	t=$({ time flood munmap$1 "$1" $PAGE munmap; } 2>&1 >/dev/null)
	awk -v t="$t" 'BEGIN { split(t, a, " "); printf "%d\n", (a[1] + a[2]) * 1000 }'
}
small=$(took $((MAX / 4)))
big=$(took $MAX)
check "registering and unmapping $MAX sections took ${big} ms of CPU, $((MAX / 4)) took ${small} ms: at most 8 times as long" \
	test "$small" -gt 0 -a "$big" -le $((8 * small))
finish
