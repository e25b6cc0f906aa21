#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The guest runs our kernel, built from our series, with tracefs.
# kernels: normal debug
# timeout: 120
. "$(dirname "$0")/../lib/result.sh"

obj=${USTACK_KOBJ:-$USTACK_TOP/build/kernel}
case "$(uname -r)" in
*-ustack) pass "uname -r is ours ($(uname -r))" ;;
*) fail "uname -r is ours" "uname -r is $(uname -r)" ;;
esac
# uname -v starts with "#<series id>": scripts/series-id.sh at build time.
series=$(cat "$obj/ustack-series" 2>/dev/null)
if [ -n "$series" ] && uname -v | grep -q "^#$series "; then
	pass "kernel built from our series ($series)"
else
	fail "kernel built from our series" "uname -v '$(uname -v)', expected #$series"
fi
if [ -f /sys/kernel/tracing/trace ] && [ -d /sys/kernel/tracing/events/syscalls ]; then
	pass "tracefs with syscall events"
else
	fail "tracefs with syscall events" "no /sys/kernel/tracing/trace or events/syscalls"
fi
check "two cpus online" test "$(nproc)" = 2
finish
