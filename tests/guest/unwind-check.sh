#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The differential test of the fast walks (issue 37, "one walker"): with
# debugfs unwind_user/check set, the kernel walks every stack a second
# time with unwind_user_next() at every frame and none of the fast walks
# (the one-window frame-pointer walk of an mm without SFrame, the SFrame
# method's walk of kept rules, the topmost-frame shortcut), and counts the
# walks whose frames differ (walks_differing). Every system call of a set
# of programs is traced, each kind of fast walk taken by some:
#  - frame pointers only: ustack-sample, 64-bit and compat, Debian's tar
#    and python3 with no table (stacks through code without frame
#    pointers, cut where garbage begins), signal delivery (ustack-sigdeliver),
#    frame pointers that cannot be followed (ustack-badfp);
#  - SFrame sections: the SFrame builds of ustack-sample, ustack-bench
#    (deep) and ustack-sigdeliver, the mixed build;
#  - tables: the -fomit-frame-pointer builds and tar, python3, gzip with
#    the tables of every file they map;
#  - crafted sections: 200 mutated SFrame sections of a JIT block
#    (ustack-sframe-reg fuzz), when /dev/sframe exists.
# walks_differing must stay 0 over thousands of walks. Walks during which
# the mm's entries or the tables changed (a first lookup, a corrupt section
# dropped by the first walk) are not compared (walks_check_skipped): before
# that rule, the 200 crafted sections gave 19 "differences" that were the
# first walk dropping a corrupt section the second then did not see.
# kernels: normal debug
# timeout: 900
. "$(dirname "$0")/../lib/result.sh"
. "$(dirname "$0")/../lib/ustack.sh"

STATS=/sys/kernel/debug/unwind_user/stats
CHECK=/sys/kernel/debug/unwind_user/check
TOOL=$USTACK_TOP/build/sframe/ustack-sframe
TABLES=$T/user_unwind_tables
P=$USTACK_PROGS

if [ ! -w $CHECK ]; then
	fail "unwind_user/check exists" "no $CHECK"
	finish
fi
# ustat NAME: a counter of the unwinder
ustat() { awk -v n="$1" '$1 == n { print $2 }' $STATS; }
# traced CMD...: CMD with every system call's user stack walked
traced() {
	"$@" > /tmp/check.out 2>&1
	echo "ran: $* (exit $?)"
}

cd /tmp || exit 1
[ -w $TABLES/remove ] && echo all > $TABLES/remove
trace_clear
kb0=$(cat $T/buffer_size_kb)
tw $T/buffer_size_kb 4096
tw $T/events/raw_syscalls/sys_enter/enable 1
tw $T/options/user_stacktrace_deferred 1
tw $CHECK 1
check "unwind_user/check reads back 1" test "$(cat $CHECK)" = 1
checked0=$(ustat walks_checked)
diffs0=$(ustat walks_differing)
skipped0=$(ustat walks_check_skipped)
fp0=$(ustat stacks_fp)
sf0=$(ustat frames_sframe)
dmesg -c > /dev/null
tw $T/tracing_on 1

# frame pointers only (no section, no table anywhere in these mms)
traced "$SAMPLE" 20
[ -x "$SAMPLE32" ] && traced "$SAMPLE32" 20
traced "$P/ustack-sigdeliver"
# frame pointers it cannot follow: both walks must say they were cut
traced "$P/ustack-badfp"
traced tar -cf /tmp/check.tar -C "$USTACK_TOP" tests/progs
traced /usr/bin/python3 -c 'import json; print(len(json.dumps(list(range(1000)))))'

# SFrame sections
traced "$P/sframe/ustack-sample" 20
traced "$P/sframe-mix/ustack-sample" 20
traced "$P/sframe/ustack-bench" 200 0
traced "$P/sframe/ustack-sigdeliver"

# tables of every file mapped
if [ -w $TABLES/load ]; then
	"$TOOL" load "$P/eh/ustack-sample" "$P/eh/libustack-sample.so" "$P/eh/ustack-eh-cases" \
		/usr/bin/tar /usr/bin/gzip /usr/bin/python3.11 \
		/lib/x86_64-linux-gnu/libc.so.6 /lib64/ld-linux-x86-64.so.2 \
		/lib/x86_64-linux-gnu/libm.so.6 /lib/x86_64-linux-gnu/libz.so.1 \
		/lib/x86_64-linux-gnu/libexpat.so.1 > /tmp/check-load.out 2>&1
	echo "tables: $(grep -c 'loaded table' /tmp/check-load.out) loaded"
	traced "$P/eh/ustack-sample" 20
	traced "$P/eh/ustack-eh-cases" deep 60
	traced "$P/eh/ustack-eh-cases" signal
	traced "$P/eh/ustack-eh-cases" longjmp
	traced tar -czf /tmp/check.tgz -C "$USTACK_TOP" tests/progs
	traced /usr/bin/python3 -c 'import json; print(len(json.dumps(list(range(1000)))))'
	echo all > $TABLES/remove
else
	skip "walks with tables" "no $TABLES/load"
fi

# crafted sections of a JIT block
if [ -e /dev/sframe ] && [ -x "$P/sframe/ustack-sframe-reg" ]; then
	traced "$P/sframe/ustack-sframe-reg" fuzz 200 7
else
	skip "walks over crafted sections" "no /dev/sframe or ustack-sframe-reg"
fi

tw $CHECK 0
checked=$(($(ustat walks_checked) - checked0))
skipped=$(($(ustat walks_check_skipped) - skipped0))
diffs=$(($(ustat walks_differing) - diffs0))
fp=$(($(ustat stacks_fp) - fp0))
sf=$(($(ustat frames_sframe) - sf0))
dmesg | grep 'unwind_user:.*differs' | head -n 10
check "walks checked: $checked, not compared as the rules changed meanwhile: $skipped ($fp frame-pointer stacks, $sf SFrame frames)" \
	sh -c "test $checked -ge 2000 && test $fp -gt 0 && test $sf -gt 0"
check "no walk differs from the general step ($diffs)" test "$diffs" = 0
c=$(ustat walks_checked)
traced "$SAMPLE" 2
check "check off, still tracing: no more walks checked ($c, $(ustat walks_checked))" \
	test "$(ustat walks_checked)" = "$c"
tw $T/tracing_on 0
trace_clear
tw $T/buffer_size_kb "$kb0"
finish
