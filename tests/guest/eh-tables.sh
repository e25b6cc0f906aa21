#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The kernel's unwind tables (tracefs user_unwind_tables/, issue 18):
#  - only CAP_SYS_ADMIN loads, removes or sets the limit, whatever the
#    files' modes;
#  - invalid and mutated tables are refused with EINVAL, or accepted and
#    walked without a kernel report;
#  - a table is per file: loaded twice it stays one; the programs
#    built -O2 -fomit-frame-pointer without .sframe get their exact chain;
#  - a table applies to the inode it was loaded with, unchanged: a copy of
#    the file (same build-id, so a forged one too) gets none, and neither
#    does the file once its inode changed (issue 37: before, a table was
#    found by the build-id the process's own pages showed);
#  - a process already running uses a table loaded after it started
#    (ustack-sframe load --mapped);
#  - a library replaced on disk (new file, new build-id) never gets the
#    old file's table; its own table, once loaded, is used;
#  - list reports bytes and users; remove by build-id, unused, all;
#  - memory is bounded: a table over the limit is refused, unused tables
#    make room oldest first, then tables in use (before, tables in use
#    stayed, so any user who mapped the libraries made root's loads fail).
# kernels: normal debug
# timeout: 600
. "$(dirname "$0")/../lib/result.sh"
. "$(dirname "$0")/../lib/ustack.sh"

TOOL=$USTACK_TOP/build/sframe/ustack-sframe
TABLES=$T/user_unwind_tables
STATS=/sys/kernel/debug/unwind_user/stats
EH=$USTACK_PROGS/eh
LIBC=$(readlink -f /lib/x86_64-linux-gnu/libc.so.6)
LDSO=$(readlink -f /lib64/ld-linux-x86-64.so.2)

if [ ! -d $TABLES ]; then
	fail "user_unwind_tables exists" "no $TABLES"
	finish
fi
if [ ! -x "$TOOL" ] || [ ! -x "$EH/ustack-sample" ]; then
	fail "test tools built" "no $TOOL or $EH/ustack-sample (make all)"
	finish
fi
cd /tmp || exit 1
tw $TABLES/remove all
check "files: load remove list limit" test -w $TABLES/load -a -w $TABLES/remove \
	-a -r $TABLES/list -a -w $TABLES/limit
check "list: no table ($(head -1 $TABLES/list))" grep -qx '# tables 0 bytes 0 limit [0-9]*' $TABLES/list
limit0=$(cat $TABLES/limit)

# table FILE: its table blob at /tmp/FILE-basename.usft, path printed
table() {
	local out=/tmp/$(basename "$1").usft

	"$TOOL" convert-eh "$1" -o "$out" > /dev/null && echo "$out"
}
# size FILE
size() { stat -c %s "$1"; }
# load_blob BLOB [FILE]: BLOB loaded as the table of FILE (libc), in one
# write() naming FILE by a descriptor; the error, if any, in /tmp/dd.err
load_blob() { "$TOOL" load --table "$1" "${2:-$LIBC}" > /dev/null 2> /tmp/dd.err; }
# build_id FILE
build_id() { readelf -n "$1" | awk '/Build ID/ { print $3 }'; }
# users ID: the users of table ID in list, or "none"
users() { awk -v id="$1" '$1 == id { print $3; f = 1 } END { if (!f) print "none" }' $TABLES/list; }
# ustat NAME: a counter of the unwinder
ustat() { awk -v n="$1" '$1 == n { print $2 }' $STATS; }
# nocap CMD...: CMD as root without any capability: the files' modes let
# it write (it owns them), the kernel's capability check must not
nocap() { setpriv --inh-caps=-all --ambient-caps=-all --bounding-set=-all "$@"; }

# ---- who may ----
LIBC_T=$(table "$LIBC")
nocap dd if="$LIBC_T" of=$TABLES/load bs="$(size "$LIBC_T")" 2> /tmp/dd.err
check "without CAP_SYS_ADMIN no load, though the file's mode allows it ($(tail -1 /tmp/dd.err))" \
	grep -q 'Operation not permitted' /tmp/dd.err
check "list: nothing loaded" grep -q '^# tables 0 ' $TABLES/list
# coreutils' echo: dash's says "I/O error" whatever the error
nocap /bin/echo all > $TABLES/remove 2> /tmp/rm.err
check "nor remove" grep -q 'Operation not permitted' /tmp/rm.err
nocap /bin/echo 1 > $TABLES/limit 2> /tmp/rm.err
check "nor set the limit" sh -c "grep -q 'Operation not permitted' /tmp/rm.err && test $(cat $TABLES/limit) = $limit0"
setpriv --reuid=65534 --regid=65534 --clear-groups cat $TABLES/list > /dev/null 2>&1
check "an unprivileged user cannot read the list either" test $? != 0

# ---- invalid tables ----
head -c 100 /dev/urandom > /tmp/random.usft
load_blob /tmp/random.usft
check "random bytes: EINVAL" grep -q 'Invalid argument' /tmp/dd.err
head -c $(($(size "$LIBC_T") - 1)) "$LIBC_T" > /tmp/short.usft
load_blob /tmp/short.usft
check "a table cut short: EINVAL" grep -q 'Invalid argument' /tmp/dd.err
{ printf 'USTKSFT2'; tail -c +9 "$LIBC_T"; } > /tmp/magic.usft
load_blob /tmp/magic.usft
check "another magic: EINVAL" grep -q 'Invalid argument' /tmp/dd.err
check "list: still no table" grep -q '^# tables 0 ' $TABLES/list

# ---- mutated tables, walked ----
tw $T/events/syscalls/sys_enter_getppid/enable 1
tw $T/options/user_stacktrace_deferred 1
tw $T/tracing_on 1
SAMPLE_T=$(table "$EH/ustack-sample")
"$TOOL" load "$LIBC" "$LDSO" "$EH/libustack-sample.so" > /dev/null
/usr/bin/python3 "$USTACK_TOP/tests/lib/table-mutate.py" $TABLES "$SAMPLE_T" 300 18 \
	"$EH/ustack-sample" 2 > /tmp/mutate.out
check "300 mutated tables of ustack-sample: EINVAL or accepted and walked ($(tail -1 /tmp/mutate.out))" \
	grep -q ' other 0$' /tmp/mutate.out
tw $TABLES/remove all
trace_clear

# ---- one table per build-id; the exact chain ----
# run_sample NAME PROG ARGS...: trace PROG's getppid calls; their stitched
# events in /tmp/NAME.st, the symbols of the first one's stack in $syms
run_sample() {
	local name=$1

	shift
	getppid_traced /dev/null "$@"
	stitched | awk -F'|' -v p=$pid '$1 == p && index($4, "sys_getppid(")' > /tmp/$name.st
	syms=$(symbols "$(awk -F'|' '{ print $5; exit }' /tmp/$name.st)")
}

run_sample none "$EH/ustack-sample" 2
check "without tables: not the known chain ($syms)" test "$(first_n 6 "$syms")" != "$CHAIN"
"$TOOL" load "$EH/ustack-sample" "$EH/libustack-sample.so" "$LIBC" "$LDSO" > /tmp/load.out 2>&1
check "load: 4 tables ($(tr '\n' ' ' < /tmp/load.out))" test "$(grep -vc '^#' $TABLES/list)" = 4
"$TOOL" load "$LIBC" > /tmp/load.out 2>&1
check "loaded again: already loaded, still 4 tables ($(cat /tmp/load.out))" \
	sh -c "grep -q 'already loaded' /tmp/load.out && test $(grep -vc '^#' $TABLES/list) = 4"
used0=$(ustat tables_used)
run_sample eh "$EH/ustack-sample" 2
check "-O2 -fomit-frame-pointer, no .sframe: exactly $CHAIN ($syms)" \
	test "$(first_n 6 "$syms")" = "$CHAIN"
check "the process used the 4 tables (tables_used +$(($(ustat tables_used) - used0)))" \
	test $(($(ustat tables_used) - used0)) = 4
check "users drop back to 0 when the process is gone" \
	test "$(users "$(build_id "$LIBC")")" = 0

# twice ACTION: ustack-eh-cases makes one traced call, the shell function
# ACTION runs, then it makes another; the symbols of the two stacks (names
# without their symbol version, @@GLIBC_2.34) in $before and $after.
# Returns 1 when the first stack never came.
EXACT="getppid eh_leaf eh_recurse eh_recurse eh_recurse eh_recurse eh_twice main __libc_start_call_main __libc_start_main _start"
twice() {
	trace_clear
	tw $T/events/syscalls/sys_enter_getppid/enable 1
	tw $T/options/user_stacktrace_deferred 1
	tw $T/tracing_on 1
	rm -f /tmp/fifo
	mkfifo /tmp/fifo
	"$EH/ustack-eh-cases" twice /tmp/fifo > /dev/null 2>&1 &
	pid=$!
	if ! wait_until 120 first_done; then
		kill $pid 2>/dev/null
		wait $pid 2>/dev/null
		rm -f /tmp/fifo
		return 1
	fi
	"$1"
	echo go > /tmp/fifo
	wait $pid
	tw $T/tracing_on 0
	rm -f /tmp/fifo
	stitched | awk -F'|' -v p=$pid '$1 == p && index($4, "sys_getppid(") { print $5 }' > /tmp/twice
	before=$(symbols "$(sed -n 1p /tmp/twice)" | sed 's/@@*[^ ]*//g')
	after=$(symbols "$(sed -n 2p /tmp/twice)" | sed 's/@@*[^ ]*//g')
}
# first_done: the first stack of $pid is in the trace
first_done() { stitched | awk -F'|' -v p=$pid '$1 == p && index($4, "sys_getppid(") && $5 ~ /\+0x/' | grep -q .; }

# ---- the table of an inode, not of a build-id ----
# /tmp/cp holds copies of the sample and its library: the same bytes and
# build-ids, other inodes. With the originals' tables loaded, only libc's
# and ld.so's apply to the copies.
mkdir -p /tmp/cp
cp "$EH/ustack-sample" "$EH/libustack-sample.so" /tmp/cp/
tw $TABLES/remove all
"$TOOL" load "$EH/ustack-sample" "$EH/libustack-sample.so" "$LIBC" "$LDSO" > /dev/null
used0=$(ustat tables_used)
run_sample cp /tmp/cp/ustack-sample 2
check "a copy with the same build-ids gets no table of the originals (tables_used +$(($(ustat tables_used) - used0)), libc and ld.so only)" \
	test $(($(ustat tables_used) - used0)) = 2
check "its stack is not the chain the tables give ($syms)" \
	test "$(first_n 6 "$syms")" != "$CHAIN"
"$TOOL" load /tmp/cp/ustack-sample /tmp/cp/libustack-sample.so > /tmp/load.out 2>&1
run_sample cp2 /tmp/cp/ustack-sample 2
check "the copies' own tables, once loaded: exactly $CHAIN ($syms)" \
	test "$(first_n 6 "$syms")" = "$CHAIN"
# a change of the inode (its change time) and the tables no longer apply
touch /tmp/cp/ustack-sample /tmp/cp/libustack-sample.so
used0=$(ustat tables_used)
run_sample cp3 /tmp/cp/ustack-sample 2
check "once the files changed, their tables no longer apply (tables_used +$(($(ustat tables_used) - used0)))" \
	test $(($(ustat tables_used) - used0)) = 2
check "list names each table's file ($(grep -v '^#' $TABLES/list | head -1))" \
	sh -c "grep -v '^#' $TABLES/list | awk 'NF != 4 || \$4 !~ /^[0-9]+:[0-9]+:[0-9]+\$/ { bad = 1 } END { exit bad }'"
tw $TABLES/remove all
trace_clear

# ---- a process already running ----
# its first call walks without tables (each file found without one), then
# the tables of what runs are loaded (its files among them)
load_mapped() { "$TOOL" load --mapped > /tmp/mapped.out 2>&1; }
tw $TABLES/remove all
if twice load_mapped; then
	check "load --mapped: $(tail -1 /tmp/mapped.out)" \
		grep -q "^$EH/ustack-eh-cases: loaded table" /tmp/mapped.out
	check "a running process: its stack before the load is short ($before)" \
		test "$(echo "$before" | wc -w)" -lt 5
	check "and after it, exact to _start ($after)" test "$after" = "$EXACT"
else
	fail "a running process: its first stack" "no stack in the trace"
fi
tw $TABLES/remove all

# ---- a table removed while a process runs ----
# the first call's rules are looked up (and kept by the kernel's rule
# cache), the tables go, the second call must not use them
remove_all() { tw $TABLES/remove all; }
"$TOOL" load "$EH/ustack-eh-cases" "$LIBC" "$LDSO" > /dev/null
cached0=$(ustat rules_cached)
if twice remove_all; then
	check "removed while running: the stack before, from the tables, is exact ($before)" \
		test "$before" = "$EXACT"
	check "and the one after is not ($after): no rule of a removed table stays in use" \
		test "$(echo "$after" | wc -w)" -lt 5
	check "the rule cache was used (rules_cached +$(($(ustat rules_cached) - cached0)))" \
		test "$(($(ustat rules_cached) - cached0))" -gt 0
else
	fail "removed while running: its first stack" "no stack in the trace"
fi
tw $TABLES/remove all

# ---- a library replaced on disk ----
# /tmp/rep holds the sample and its library (found through $ORIGIN); the
# library is replaced the way dpkg does it (a new file renamed over the old
# one) by the same code built -O1: another build-id, other offsets.
mkdir -p /tmp/rep
cp "$EH/ustack-sample" "$EH/libustack-sample.so" /tmp/rep/
"$TOOL" load /tmp/rep/ustack-sample /tmp/rep/libustack-sample.so "$LIBC" "$LDSO" > /dev/null
OLD_ID=$(build_id /tmp/rep/libustack-sample.so)
run_sample rep1 /tmp/rep/ustack-sample 2
check "the library's table: exactly $CHAIN ($syms)" test "$(first_n 6 "$syms")" = "$CHAIN"
cp "$USTACK_PROGS/eh-o1/libustack-sample.so" /tmp/rep/new.so
mv /tmp/rep/new.so /tmp/rep/libustack-sample.so
used0=$(ustat tables_used)
run_sample rep2 /tmp/rep/ustack-sample 2
check "replaced: the new file does not get the old one's table (tables_used +$(($(ustat tables_used) - used0)), 3 of the 4 files)" \
	test $(($(ustat tables_used) - used0)) = 3
check "the old table has no user ($(users "$OLD_ID"))" test "$(users "$OLD_ID")" = 0
"$TOOL" load /tmp/rep/libustack-sample.so > /dev/null
run_sample rep3 /tmp/rep/ustack-sample 2
check "the new file's own table, once loaded: exactly $CHAIN ($syms)" \
	test "$(first_n 6 "$syms")" = "$CHAIN"

# ---- remove ----
tw $TABLES/remove "$OLD_ID"
check "remove BUILD-ID: that table goes" test "$(users "$OLD_ID")" = none
/bin/echo 0123 > $TABLES/remove 2> /tmp/rm.err
check "remove an unknown build-id: ENOENT" grep -q 'No such file' /tmp/rm.err
tw $TABLES/remove unused
check "remove unused: all (nothing runs)" grep -q '^# tables 0 bytes 0 ' $TABLES/list

# ---- the limit ----
LD_T=$(table "$LDSO")
tw $TABLES/limit $(($(size "$LIBC_T") - 1))
load_blob "$LIBC_T"
check "a table larger than the limit: EFBIG" grep -q 'File too large' /tmp/dd.err
tw $TABLES/limit $(($(size "$LIBC_T") + $(size "$LD_T") - 1))
load_blob "$LIBC_T"
load_blob "$LD_T" "$LDSO"
check "over the limit, an unused table makes room ($(grep -v '^#' $TABLES/list | tr '\n' ' '))" \
	sh -c "test \"$(users "$(build_id "$LIBC")")\" = none -a \"$(users "$(build_id "$LDSO")")\" = 0"
# tables in use make room too, oldest first (no user who maps files can
# make root's loads fail): the sample spins with its tables in use
tw $TABLES/remove all
tw $TABLES/limit "$limit0"
"$TOOL" load "$EH/ustack-sample" "$EH/libustack-sample.so" "$LIBC" > /dev/null
tw $T/tracing_on 1
"$EH/ustack-sample" 1 spin 100000 > /dev/null 2>&1 &
pid=$!
libc_used() { test "$(users "$(build_id "$LIBC")")" -ge 1; }
if wait_until 120 libc_used; then
	bytes=$(awk '/^# tables/ { print $5 }' $TABLES/list)
	tw $TABLES/limit $((bytes + $(size "$LD_T") - 1))
	load_blob "$LD_T" "$LDSO"
	check "over the limit with the other tables in use: loaded, no user pins a table ($(tail -1 /tmp/dd.err))" \
		sh -c "test ! -s /tmp/dd.err && test \"$(users "$(build_id "$LDSO")")\" = 0"
	check "the oldest table in use (the sample's) made room, and only it ($(grep -v '^#' $TABLES/list | wc -l) tables)" \
		sh -c "test \"$(users "$(build_id "$EH/ustack-sample")")\" = none &&
			test \"$(users "$(build_id "$LIBC")")\" -ge 1"
	check "list: bytes add up to the tables' sizes" \
		test "$(awk '/^# tables/ { print $5 }' $TABLES/list)" = \
		"$(grep -v '^#' $TABLES/list | awk '{ s += $2 } END { print s }')"
else
	fail "a table in use" "libc's table never got a user"
fi
kill $pid 2>/dev/null
wait $pid 2>/dev/null
trace_clear
tw $TABLES/remove all
tw $TABLES/limit "$limit0"
finish
