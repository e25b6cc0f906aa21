#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Stock trace-cmd records the sample program inside the guest and reads the
# trace back.
# timeout: 180
. "$(dirname "$0")/../lib/result.sh"

cd /tmp || exit 1
sample=$USTACK_PROGS/ustack-sample
out=$(trace-cmd record -q -o /tmp/t.dat -e syscalls:sys_enter_getppid -F "$sample" 7 2>&1)
if [ $? = 0 ] && [ -s /tmp/t.dat ] && echo "$out" | grep -q 'ustack-sample: 7 calls'; then
	pass "trace-cmd record of the sample program"
else
	fail "trace-cmd record of the sample program" "$out"
fi
report=$(trace-cmd report -i /tmp/t.dat 2>&1)
n=$(echo "$report" | grep -c 'ustack-sample-[0-9]* .*sys_enter_getppid:')
if [ "$n" = 7 ]; then
	pass "trace-cmd report shows the 7 getppid calls"
else
	fail "trace-cmd report shows the 7 getppid calls" "saw $n: $(echo "$report" | head -n 5)"
fi
finish
