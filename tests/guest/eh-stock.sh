#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Exact user stacks on a stock Debian 12 system (issue 18): one command
# (ustack-sframe load) converts the .eh_frame of the traced programs and of
# every library they map into unwind tables and loads them; then the
# deferred stacks of their system calls must equal, frame by frame, the
# stacks perf unwinds with DWARF (perf record --call-graph dwarf, our perf)
# from the same calls, for at least 95% of the calls:
#  - stock programs: tar, gzip, sort, find, python3 and perl running
#    scripts with a deep call chain (the interpreter's C frames down to
#    _start), python3 importing C extension modules (ld.so's dlopen);
#  - programs built -O2 -fomit-frame-pointer without .sframe: the known
#    chain of ustack-sample; a signal handler, a longjmp, a thread (down to
#    clone3) and a 60-deep recursion (tests/progs/eh-cases.c).
# The known chains are also checked by name.
# kernels: normal debug
# timeout: 900
. "$(dirname "$0")/../lib/result.sh"
. "$(dirname "$0")/../lib/ustack.sh"
. "$(dirname "$0")/../lib/eh-stock.sh"

PERF=$USTACK_TOP/build/perf/perf
TOOL=$USTACK_TOP/build/sframe/ustack-sframe
CMP=$USTACK_TOP/tests/lib/stack-compare.py
TABLES=$T/user_unwind_tables
EH=$USTACK_PROGS/eh
PY=/usr/bin/python3.11

if [ ! -d $TABLES ]; then
	fail "user_unwind_tables exists" "no $TABLES"
	finish
fi
for f in "$PERF" "$TOOL" "$EH/ustack-sample" "$EH/ustack-eh-cases"; do
	if [ ! -x "$f" ]; then
		fail "test tools built" "no $f (make all)"
		finish
	fi
done
cd /tmp || exit 1
echo -1 > /proc/sys/kernel/perf_event_paranoid
tw $TABLES/remove all

# ---- the one setup command ----
DYN=/usr/lib/python3.11/lib-dynload
progs="/usr/bin/tar /usr/bin/gzip /usr/bin/sort /usr/bin/find $PY /usr/bin/perl \
	$EH/ustack-sample $EH/ustack-eh-cases $DYN/_bz2.cpython-311-x86_64-linux-gnu.so \
	$DYN/_lzma.cpython-311-x86_64-linux-gnu.so"
files=$(for p in $progs; do
	echo "$p"
	ldd "$p" | awk '$3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }'
done | xargs -n1 readlink -f | sort -u)
n=$(echo "$files" | wc -l)
# shellcheck disable=SC2086
"$TOOL" load $files > /tmp/load.out 2>&1
check "ustack-sframe load: $n files ($(tr '\n' ' ' < /tmp/load.out | head -c 300))" \
	test "$(grep -c 'loaded table' /tmp/load.out)" = "$n"
check "list: $n tables" test "$(grep -vc '^#' $TABLES/list)" = "$n"

total_e=0
total_n=0
# compare NAME EVENT CMD...: the deferred stacks and perf's DWARF stacks
# of the sys_enter_EVENT calls of CMD, counted into total_e/total_n;
# /tmp/NAME.st keeps the stitched events. Our own programs (eh-*) must be
# equal in every call; a stock program's count is printed, and goes into
# the goal on the total.
compare() {
	local name=$1 ev=$2 e n

	shift 2
	trace_clear
	tw $T/buffer_size_kb 16384
	tw $T/events/syscalls/sys_enter_$ev/enable 1
	tw $T/options/user_stacktrace_deferred 1
	tw $T/tracing_on 1
	"$PERF" record -q -e syscalls:sys_enter_$ev --call-graph dwarf,32768 -m 8M \
		-o /tmp/$name.data -- "$@" > /dev/null 2> /tmp/$name.err
	tw $T/tracing_on 0
	stitched > /tmp/$name.st
	"$PERF" script -i /tmp/$name.data -F comm,tid,ip,dsoff --no-inline \
		> /tmp/$name.perf 2> /dev/null
	/usr/bin/python3 "$CMP" /tmp/$name.st /tmp/$name.perf "sys_$ev(" > /tmp/$name.cmp
	read -r _ _ e _ n < <(grep '^total ' /tmp/$name.cmp | sed 's/^total/x/')
	total_e=$((total_e + ${e:-0}))
	total_n=$((total_n + ${n:-0}))
	echo "$name: $e of $n stacks equal perf's DWARF stacks"
	grep -A2 '^diff' /tmp/$name.cmp | head -9
	case $name in
	eh-*)	check "$name: every stack equals perf's DWARF stack ($e of $n)" \
			test "${n:-0}" -gt 0 -a "$e" = "$n" ;;
	*)	check "$name: perf recorded the calls ($n)" test "${n:-0}" -gt 0 ;;
	esac
}

# names NAME EVENT: the symbols of the stack of the first event of NAME's
# command (the thread of perf's first sample: perf records the command
# only, the trace has perf's own calls too), the caller frames looked up at
# their return address - 1
names() {
	local f path off i=0 out names= tid

	tid=$(awk 'NF && !/^[ \t]/ { print $NF; exit }' /tmp/$1.perf)
	for f in $(awk -F'|' -v m="sys_$2(" -v t="$tid" '$1 == t && index($4, m) { print $5; exit }' \
		   /tmp/$1.st); do
		path=${f%+0x*}
		off=$((0x${f##*+0x} - (i > 0)))
		out=$("$SYMBOLIZE" "$path" "$(printf '%#x' $off)" 2>/dev/null)
		names="$names ${out%%+0x*}"
		i=$((i + 1))
	done
	echo $names
}

stock_inputs /tmp
compare tar write /usr/bin/tar -cf /tmp/src.tar -C /tmp src
compare gzip write sh -c "/usr/bin/gzip -c /tmp/src.tar > /tmp/src.tar.gz"
compare sort write sh -c "/usr/bin/sort -r /tmp/src.tar > /tmp/sorted"
compare find write sh -c "/usr/bin/find /usr/share/doc -maxdepth 2 > /tmp/found"

compare python3 write $PY /tmp/deep.py
syms=$(names python3 write)
check "python3: the stack goes through the interpreter's C frames to _start ($(first_n 4 "$syms") ... ${syms##* })" \
	test "${syms##* }" = _start -a "$(echo "$syms" | wc -w)" -ge 10

# through ld.so: python3 imports two C extension modules; ld.so opens
# them and their libraries (dlopen), the interpreter its other files
compare python3-dlopen openat $PY -c 'import _bz2, _lzma'
tid=$(awk 'NF && !/^[ \t]/ { print $NF; exit }' /tmp/python3-dlopen.perf)
n=$(awk -F'|' -v t="$tid" '$1 == t && index($4, "sys_openat(") && index($5, "/ld-linux-x86-64.so.2+")' \
	/tmp/python3-dlopen.st | wc -l)
check "python3 import: $n of its openat stacks go through ld.so (dlopen), compared above" \
	test "$n" -ge 4

compare perl write /usr/bin/perl -e "$STOCK_PERL"
syms=$(names perl write)
check "perl: the stack goes through the interpreter's C frames to _start ($(first_n 4 "$syms") ... ${syms##* })" \
	test "${syms##* }" = _start -a "$(echo "$syms" | wc -w)" -ge 6

compare eh-sample getppid "$EH/ustack-sample" 5
syms=$(names eh-sample getppid)
check "ustack-sample -O2 -fomit-frame-pointer, no .sframe: exactly $CHAIN, to _start ($syms)" \
	test "$(first_n 6 "$syms")" = "$CHAIN" -a "${syms##* }" = _start

compare eh-signal getppid "$EH/ustack-eh-cases" signal
syms=$(names eh-signal getppid)
check "signal handler: eh_leaf eh_handler, the signal frame, then kill eh_raise eh_signal main ($syms)" \
	sh -c "echo '$syms' | grep -q 'eh_leaf eh_handler .* eh_raise eh_signal main'"

compare eh-longjmp getppid "$EH/ustack-eh-cases" longjmp
syms=$(names eh-longjmp getppid)
check "after longjmp: eh_leaf eh_after eh_jump_outer main, none of the frames left ($syms)" \
	sh -c "echo '$syms' | grep -q 'eh_leaf eh_after eh_jump_outer main' && ! echo '$syms' | grep -q eh_jump_deep"

compare eh-thread getppid "$EH/ustack-eh-cases" thread
syms=$(names eh-thread getppid)
check "thread: eh_leaf eh_thread_leaf eh_thread_fn start_thread clone3 ($syms)" \
	sh -c "echo '$syms' | grep -Eq 'eh_leaf eh_thread_leaf eh_thread_fn start_thread (__)?clone3$'"

compare eh-deep getppid "$EH/ustack-eh-cases" deep 60
syms=$(names eh-deep getppid)
check "60-deep recursion: 61 eh_recurse frames, then main ($(echo "$syms" | wc -w) frames)" \
	test "$(echo "$syms" | tr ' ' '\n' | grep -c '^eh_recurse$')" = 61

pct=$((total_n ? 1000 * total_e / total_n : 0))
check "goal: at least 95% of all stacks equal perf's DWARF stacks: $total_e of $total_n ($((pct / 10)).$((pct % 10))%)" \
	test "$total_n" -gt 0 -a "$pct" -ge 950
tw $TABLES/remove all
trace_clear
finish
