#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Stock trace-cmd on an instance, as issue 19 found it broken: "trace-cmd
# record -B NAME -O user_stacktrace_deferred" (the option on in the instance
# only, the top level recording the same event without it), and "trace-cmd
# extract -B NAME" of an instance set up through tracefs. "trace-cmd report"
# with the plugin shows the exact known chain under each getppid event of
# ustack-sample in the instance, nothing under the top level's, and nothing
# lost. The host tests (plugin-buffers.sh) cover the same on traces built from
# the committed fixture; this one records them.
# timeout: 600
. "$(dirname "$0")/../lib/result.sh"
. "$(dirname "$0")/../lib/ustack.sh"

PLUGIN_DIR=$USTACK_TOP/build/trace-cmd-plugin
export TRACEEVENT_PLUGIN_DIR=$PLUGIN_DIR
N=5

if [ ! -r "$PLUGIN_DIR/plugin_ustack.so" ]; then
	fail "plugin built" "no $PLUGIN_DIR/plugin_ustack.so (make trace-cmd-plugin)"
	finish
fi
if [ ! -e "$T"/options/user_stacktrace_deferred ]; then
	fail "option exists" "no $T/options/user_stacktrace_deferred"
	finish
fi

# The program and its library in a directory of their own (rpath $ORIGIN).
P=/tmp/instance-progs
mkdir -p $P
cp "$SAMPLE" "$USTACK_PROGS/libustack-sample.so" $P/
cd /tmp || exit 1

# stacks FILE: "buffer|frame frame ..." for each sys_enter_getppid event of
# ustack-sample in report's output FILE, its first 6 frames ("" when nothing
# is under it, LOST when the plugin says lost); buffer: report's prefix (the
# instance), "top" without one
stacks() {
	awk 'function out() { if (ev != "") print ev "|" (lost ? "LOST" : substr(st, 2)) }
	     /^ => / {
		if (ev == "")
			next
		if (index($0, "[user stack"))
			lost = 1
		else if (n++ < 6) {
			f = $2
			sub(/\+0x[0-9a-f]+$/, "", f)
			st = st " " f
		}
		next
	     }
	     { out(); ev = ""; st = ""; n = 0; lost = 0 }
	     / sys_enter_getppid:/ && / ustack-sample-[0-9]+ / {
		ev = ($1 ~ /:$/) ? substr($1, 1, length($1) - 1) : "top"
	     }
	     END { out() }' "$1"
}

# expect NAME FILE WANT: each line of WANT is "buffer N-with-the-chain N-with-nothing";
# no other buffer, and no event with anything else under it
expect() {
	local got want
	got=$(stacks "$2" | awk -F'|' -v c="$CHAIN" '
		{ b[$1]; if ($2 == c) s[$1]++; else if ($2 == "") n[$1]++; else bad[$1]++ }
		END { for (k in b) print k, s[k] + 0, n[k] + 0, bad[k] + 0 }' | sort)
	want=$(echo "$3" | awk '{ print $1, $2, $3, 0 }' | sort)
	if [ "$got" = "$want" ]; then
		pass "$1"
	else
		fail "$1" "got '$(tr '\n' ' ' <<<"$got")', want '$(tr '\n' ' ' <<<"$want")'"
	fi
}

# -- trace-cmd record -B: the option on in the instance only
if out=$(trace-cmd record -q -o /tmp/rb.dat -e syscalls:sys_enter_getppid \
	-B ustk -O user_stacktrace_deferred -e syscalls:sys_enter_getppid \
	$P/ustack-sample $N 2>&1) && echo "$out" | grep -q "ustack-sample: $N calls"; then
	pass "record -B ustk -O user_stacktrace_deferred"
else
	fail "record -B ustk -O user_stacktrace_deferred" "$out"
fi
trace-cmd report -i /tmp/rb.dat > /tmp/rb.txt 2>/tmp/rb.err
expect "record -B: the instance's events with the chain, the top level's with none" \
	/tmp/rb.txt "ustk $N 0
top 0 $N"
check "record -B: no stack said lost" test "$(grep -c '\[user stack lost' /tmp/rb.txt)" = 0
check "record -B: the plugin said nothing on stderr" test ! -s /tmp/rb.err
check "record -B: the top level's option left off" \
	test "$(cat "$T"/options/user_stacktrace_deferred)" = 0

# -- trace-cmd extract -B of an instance set up by hand
I=$T/instances/ustk-x
mkdir "$I" || { fail "instance" "cannot create $I"; finish; }
tw "$I"/options/user_stacktrace_deferred 1
tw "$I"/events/syscalls/sys_enter_getppid/enable 1
tw "$I"/tracing_on 1
$P/ustack-sample $N > /dev/null
tw "$I"/tracing_on 0
out=$(trace-cmd extract -B ustk-x -o /tmp/ex.dat 2>&1)
check "extract -B ustk-x" test $? = 0
trace-cmd report -i /tmp/ex.dat > /tmp/ex.txt 2>/tmp/ex.err
expect "extract -B: the instance's events, each with the chain" /tmp/ex.txt "ustk-x $N 0"
check "extract -B: no stack said lost" test "$(grep -c '\[user stack lost' /tmp/ex.txt)" = 0
check "extract -B: the plugin said nothing on stderr" test ! -s /tmp/ex.err
# trace-cmd 3.1.6's extract removes the instances it read; if not, here
if [ -d "$I" ]; then
	trace_clear "$I"
	rmdir "$I"
fi

rm -rf $P /tmp/rb.dat /tmp/rb.txt /tmp/rb.err /tmp/ex.dat /tmp/ex.txt /tmp/ex.err
finish
