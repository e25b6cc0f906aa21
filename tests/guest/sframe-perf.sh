#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# perf record --call-graph fp,defer of SFrame code: the deferred user
# callchain comes from the same unwinder, so perf script shows the exact
# chain of the sample built -fomit-frame-pointer -Wa,--gsframe (where
# frame pointers alone lose frames):
#  - getppid tracepoint samples of the SFrame sample (sections found by the
#    kernel), per task: exact chain, every sample merged;
#  - the same of ustack-sframe-reg with its sections registered (V3);
#  - cpu-clock samples while the SFrame sample spins in sample_spin.
# kernels: normal debug
# timeout: 300
. "$(dirname "$0")/../lib/result.sh"
. "$(dirname "$0")/../lib/ustack.sh"

PERF=$USTACK_TOP/build/perf/perf
CHAINS=$USTACK_TOP/tests/lib/perf-chains.awk
SF=$USTACK_PROGS/sframe/ustack-sample
REG=$USTACK_PROGS/sframe/ustack-sframe-reg
SPIN_CHAIN="sample_spin sample_then sample_middle sample_outer main"

if [ ! -x "$PERF" ]; then
	fail "perf built" "no $PERF (make perf)"
	finish
fi
if [ ! -x "$SF" ]; then
	skip "sframe perf" "no $SF (make progs)"
	finish
fi
cd /tmp || exit 1
echo -1 > /proc/sys/kernel/perf_event_paranoid

# perf_chains FILE: perf-chains.awk lines of FILE, merged
perf_chains() {
	"$PERF" script -i "$1" -F tid,time,event,ip,sym,dso 2>/dev/null | awk -f "$CHAINS"
}

# first_syms N: the first N user symbols of each line
first_syms() {
	awk -F'|' -v n="$1" '{ split($4, a, " "); s = "";
		for (i = 1; i <= n; i++) s = s (i > 1 ? " " : "") a[i]; print s }'
}

# tid_of FILE COMM: the thread id of COMM's samples
tid_of() { "$PERF" script -i "$1" -F comm,tid 2>/dev/null | awk -v c="$2" '$1 == c { print $2; exit }'; }

# getppid_chains NAME FILE COMM: 5 getppid samples of COMM, merged, exactly $CHAIN
getppid_chains() {
	local name=$1 f=$2 tid

	tid=$(tid_of "$f" "$3")
	perf_chains "$f" | awk -F'|' -v t="$tid" '$1 == "S" && $2 == t && $3 ~ /getppid/' > /tmp/getppid.s
	check "$name: 5 samples" test "$(wc -l < /tmp/getppid.s)" = 5
	check "$name: every sample merged with its deferred chain" \
		test "$(grep -c 'NEVER\|RAW' /tmp/getppid.s)" = 0
	check "$name: every user chain is exactly $CHAIN ($(first_syms 6 < /tmp/getppid.s | sort | uniq -c | tr '\n' ' '))" \
		test "$(first_syms 6 < /tmp/getppid.s | sort -u)" = "$CHAIN"
}

sframe_stacks=$(awk '$1 == "stacks_sframe" { print $2 }' /sys/kernel/debug/unwind_user/stats 2>/dev/null)

"$PERF" record -q -e syscalls:sys_enter_getppid --call-graph fp,defer -o sf.data \
	-- "$SF" 5 > /tmp/rec.out 2>&1
check "SFrame sample: perf record" grep -q '5 calls' /tmp/rec.out
getppid_chains "SFrame sample" sf.data ustack-sample
check "SFrame sample: the kernel walked with SFrame (stacks_sframe grew)" \
	test "$(awk '$1 == "stacks_sframe" { print $2 }' /sys/kernel/debug/unwind_user/stats)" -gt "${sframe_stacks:-0}"

if [ -c /dev/sframe ] && [ -x "$REG" ]; then
	"$PERF" record -q -e syscalls:sys_enter_getppid --call-graph fp,defer -o reg.data \
		-- "$REG" -v 3 calls 5 > /tmp/rec.out 2>&1
	check "registered V3: perf record" grep -q '^unregistered 2' /tmp/rec.out
	getppid_chains "registered V3" reg.data ustack-sframe-r
else
	skip "registered V3" "no /dev/sframe or no $REG"
fi

# The sample spins until a cpu-clock timer of its own, of perf's period, has
# sampled it 50 times in user mode (ticks): as many timer interrupts over the
# loop on a busy host as on a quiet one.
"$PERF" record -q -e cpu-clock -c 100000 --call-graph fp,defer -o spin.data \
	-- "$SF" 1 ticks 50 > /tmp/rec.out 2>&1
check "cpu-clock over the spinning SFrame sample: perf record" \
	sh -c "grep -q '1 calls' /tmp/rec.out && ! grep -q 'ticks:' /tmp/rec.out"
perf_chains spin.data | awk -F'|' '$1 == "S" && $4 ~ /^sample_spin/' > /tmp/spin
n=$(wc -l < /tmp/spin)
check "cpu-clock over the spinning SFrame sample: samples in sample_spin ($n, at least 10)" test "$n" -ge 10
check "cpu-clock: their chains are exactly $SPIN_CHAIN ($(first_syms 5 < /tmp/spin | sort | uniq -c | tr '\n' ' '))" \
	test "$(first_syms 5 < /tmp/spin | sort -u)" = "$SPIN_CHAIN"
finish
