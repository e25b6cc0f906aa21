#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Stock trace-cmd with the plugin: "trace-cmd record -O user_stacktrace_deferred"
# of ustack-sample, then "trace-cmd report" shows the exact known chain under
# each of its getppid events: after the program exited, with its binaries in a
# directory of their own and only their paths leading to them; a trace with
# forced overruns says which stacks were lost.
# timeout: 600
. "$(dirname "$0")/../lib/result.sh"
. "$(dirname "$0")/../lib/ustack.sh"

PLUGIN_DIR=$USTACK_TOP/build/trace-cmd-plugin
AWK=$USTACK_TOP/tests/lib/report-stacks.awk
export TRACEEVENT_PLUGIN_DIR=$PLUGIN_DIR

if [ ! -r "$PLUGIN_DIR/plugin_ustack.so" ]; then
	fail "plugin built" "no $PLUGIN_DIR/plugin_ustack.so (make trace-cmd-plugin)"
	finish
fi
if [ ! -e $T/options/user_stacktrace_deferred ]; then
	fail "option exists" "no $T/options/user_stacktrace_deferred"
	finish
fi

# The program and its library in a directory of their own (rpath $ORIGIN).
P=/tmp/plugin-progs
mkdir -p $P
cp "$SAMPLE" "$USTACK_PROGS/libustack-sample.so" $P/
cd /tmp || exit 1

# getppid_stacks FILE: "frames" of every getppid (NR 110) event of ustack-sample
getppid_stacks() {
	awk -f "$AWK" "$1" | awk -F'|' '$1 ~ /^ustack-sample-/ && $2 ~ /sys_(enter|exit): *NR 110 /'
}

# exact_chain NAME FILE N: N getppid events, each with exactly the chain
exact_chain() {
	local name=$1 file=$2 want=$3 n bad="" syms

	n=$(getppid_stacks "$file" | wc -l)
	while IFS="|" read -r _ ev frames; do
		syms=$(first_n 6 "$frames")
		[ "$syms" = "$CHAIN" ] || bad="$ev: '$frames'"
	done < <(getppid_stacks "$file")
	if [ "$n" = "$want" ] && [ -z "$bad" ]; then
		pass "$name"
	else
		fail "$name" "$n events (want $want); $bad"
	fi
}

out=$(trace-cmd record -q -o /tmp/pr.dat -O user_stacktrace_deferred -e raw_syscalls \
	-F $P/ustack-sample 5 2>&1)
if [ $? = 0 ] && echo "$out" | grep -q 'ustack-sample: 5 calls'; then
	pass "stock trace-cmd record -O user_stacktrace_deferred"
else
	fail "stock trace-cmd record -O user_stacktrace_deferred" "$out"
fi
during=$(trace-cmd record -q -o /tmp/opt.dat -O user_stacktrace_deferred \
	-e syscalls:sys_enter_getppid cat $T/options/user_stacktrace_deferred 2>&1)
check "record -O user_stacktrace_deferred: set while recording, put back after" \
	test "$during $(cat $T/options/user_stacktrace_deferred)" = "1 0"
check "the trace has the deferred entries" \
	test "$(trace-cmd report -N -i /tmp/pr.dat 2>/dev/null | grep -c 'user_unwind_stack:')" -gt 0

# the program has exited: no /proc/PID, only the paths in the file entries
trace-cmd report -i /tmp/pr.dat > /tmp/pr.txt 2>/tmp/pr.err
exact_chain "report: the 10 getppid events, each with exactly the known chain" /tmp/pr.txt 10
check "report: the frames name the copied binaries" \
	grep -q "^ => sample_middle+0x[0-9a-f]* ($P/ustack-sample)$" /tmp/pr.txt
check "report: the stack is the next line after its event" \
	test "$(grep -m1 -A1 'sys_enter: *NR 110 ' /tmp/pr.txt | tail -n 1 | cut -c1-25)" = \
	" => ustack_lib_syscall+0x"
# a stack entry that gives its task the next cookie says which (the kernel's
# print format: hex without 0x)
line=$(grep -m1 -o 'user_unwind_stack: *cookie=[0-9a-f]* next=[1-9a-f][0-9a-f]* nr=[0-9]* flags=[0-9a-f]*$' /tmp/pr.txt)
c=${line#*cookie=}
c=${c%% *}
n=${line#*next=}
n=${n%% *}
if [ -n "$line" ] && [ "$(printf '%x' $((0x$c + 0x200000000)))" = "$n" ]; then
	pass "report: a stack entry prints the next cookie it gives"
else
	fail "report: a stack entry prints the next cookie it gives" "'$line'"
fi
check "report: no stack lost" test "$(grep -c '^ => ' /tmp/pr.txt)" -gt 0 -a \
	"$(grep -c 'user stack lost' /tmp/pr.txt)" = 0
check "report: the plugin said nothing on stderr" test ! -s /tmp/pr.err

# the binaries gone: their frames are unknown (file+offset), never wrong
mv $P /tmp/plugin-progs.gone
trace-cmd report -i /tmp/pr.dat > /tmp/gone.txt 2>&1
n=$(getppid_stacks /tmp/gone.txt | awk -F'|' '{ split($3, f, " "); if (f[1] == "[unknown]") n++ } END { print n + 0 }')
check "binaries removed: 10 events with [unknown] frames" test "$n" = 10
check "binaries removed: file+offset given" \
	grep -q "^ => \[unknown\] ($P/libustack-sample.so+0x[0-9a-f]*)$" /tmp/gone.txt
mv /tmp/plugin-progs.gone $P

# -- forced overruns: a 4 KB buffer per CPU, read once a second, many calls
trace-cmd record -q -o /tmp/ov.dat -b 4 -s 1000000 -O user_stacktrace_deferred \
	-e raw_syscalls -F $P/ustack-sample 3000 > /tmp/ov.rec 2>&1
trace-cmd report -i /tmp/ov.dat > /tmp/ov.txt 2>&1
dropped=$(grep -c 'EVENTS DROPPED\]' /tmp/ov.txt)
lost=$(getppid_stacks /tmp/ov.txt | awk -F'|' '$3 == "LOST"' | wc -l)
good=$(getppid_stacks /tmp/ov.txt | awk -F'|' '$3 != "LOST" && $3 != ""' | wc -l)
bad=$(getppid_stacks /tmp/ov.txt | awk -F'|' -v c="$CHAIN" '$3 != "LOST" && $3 != "" {
	split($3, f, " "); s = f[1]; for (i = 2; i <= 6; i++) s = s " " f[i]; if (s != c) print }' |
	head -n 1)
echo "overrun trace: $dropped drop marks, $good getppid events with a stack, $lost lost"
if [ "$dropped" -gt 0 ]; then
	pass "overrun: the trace has dropped events"
	check "overrun: lost stacks are reported as lost" test "$lost" -gt 0
else
	fail "overrun: the trace has dropped events" "no drop marks ($(tail -n 2 /tmp/ov.rec))"
fi
if [ "$good" -gt 0 ] && [ -z "$bad" ]; then
	pass "overrun: every stack shown is exactly the chain"
else
	fail "overrun: every stack shown is exactly the chain" "$good with a stack; first other: $bad"
fi
check "overrun: some stacks survived" test "$good" -gt 0
check "overrun: no event without a line under it after a drop" test "$((good + lost))" -gt 0 -a \
	"$(getppid_stacks /tmp/ov.txt | awk -F'|' '$3 == ""' | wc -l)" = 0

# -- the read-ahead's reader (memory bounded): the file opened again every 4 KiB of
# decompressed pages, with dropped events in the trace; a longer trace as file
# version 6, whose pages it drops from memory, and opened again every 256 KiB.
# Each gives exactly the output of the plain read-ahead.
# same_report NAME FILE OPTIONS...: the output is that of "report FILE", and
# stderr has a "file opened again"/"pages dropped" count above zero (which: $WANT)
same_report() {
	local name=$1 file=$2
	shift 2
	trace-cmd report -i "$file" > /tmp/same-a.txt 2>/dev/null
	trace-cmd report -O ustack_stats "$@" -i "$file" > /tmp/same-b.txt 2>/tmp/same-b.err
	if cmp -s /tmp/same-a.txt /tmp/same-b.txt &&
	   grep -q "$WANT" /tmp/same-b.err; then
		pass "$name"
	else
		fail "$name" "$(grep plugin_ustack /tmp/same-b.err) $(diff /tmp/same-a.txt /tmp/same-b.txt | head -n 4)"
	fi
}
WANT='file opened again [1-9]'
same_report "overrun, reopened every 4 KiB: the same output" /tmp/ov.dat -O ustack_reopen_kb=4
trace-cmd record -q -b 16384 -o /tmp/long.dat -O user_stacktrace_deferred -e raw_syscalls \
	-F $P/ustack-sample 10000 > /dev/null 2>&1
trace-cmd convert -i /tmp/long.dat -o /tmp/long6.dat --file-version 6 --compression none \
	> /dev/null 2>&1
same_report "40 k records, reopened every 256 KiB: the same output" /tmp/long.dat \
	-O ustack_reopen_kb=256
# a guest kernel without madvise() (ADVISE_SYSCALLS off) cannot drop pages
if python3 -c 'import mmap; mmap.mmap(-1, 4096).madvise(mmap.MADV_DONTNEED)' 2>/dev/null; then
	WANT=' [1-9][0-9]* pages dropped'
	same_report "40 k records, version 6, pages dropped: the same output" /tmp/long6.dat
else
	WANT=' 0 pages dropped'
	same_report "40 k records, version 6, no madvise(): the same output" /tmp/long6.dat
	skip "40 k records, version 6, pages dropped" "the kernel has no madvise()"
fi
check "40 k records, version 6 and 7: the same stacks" \
	test "$(trace-cmd report -i /tmp/long.dat 2>/dev/null | grep -c '^ => ')" -gt 0 -a \
	"$(trace-cmd report -i /tmp/long.dat 2>/dev/null | grep '^ => ' | md5sum)" = \
	"$(trace-cmd report -i /tmp/long6.dat 2>/dev/null | grep '^ => ' | md5sum)"
rm -f /tmp/long.dat /tmp/long6.dat /tmp/same-a.txt /tmp/same-b.txt
trace_clear
finish
