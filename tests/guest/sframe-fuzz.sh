#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Corrupted SFrame sections through /dev/sframe: ustack-sframe-reg fuzz
# (tests/progs/sframe-reg-fuzz.c) registers usf_mutate()d copies of a
# valid section (V1, V2, V2+PCREL, V3 in turn; every corruption class) for
# a JIT block in anonymous memory, makes one traced getppid call through
# the block each round and unregisters. No crash, hang or kernel report
# (guest-run.sh fails the run on any console report, on the debug kernel
# too: KASAN, lockdep, kmemleak), and every stack is the exact chain or
# ends early, never a wrong frame where the rules that applied were the
# valid ones (the program decides which frames it can check, with libusf).
#
# SFRAME_FUZZ_N rounds (2000) in runs of SFRAME_FUZZ_CHUNK (2000) from
# SFRAME_FUZZ_SEED (1); make sframe-fuzz-kernel runs 100,000 on the debug
# kernel.
# kernels: normal debug
# timeout: 600
. "$(dirname "$0")/../lib/result.sh"
. "$(dirname "$0")/../lib/ustack.sh"
. "$(dirname "$0")/../lib/sframe-reg.sh"

N=${SFRAME_FUZZ_N:-2000}
CHUNK=${SFRAME_FUZZ_CHUNK:-2000}
SEED=${SFRAME_FUZZ_SEED:-1}

sr_ready

# room for a run's events and stacks in the buffer
echo 4096 > $T/buffer_size_kb
added=$(stat sections_added)
corrupt=$(stat sections_corrupt)
removed=$(stat sections_removed)
notcov=$(stat fallbacks_not_covered)
badrow=$(stat fallbacks_bad_row)
start=$(date +%s.%N)
done_n=0 runs=0 bad_runs=0 expected=0 events=0 ok=0 wrong=0 short=0 none=0 prog_s=0
: > /tmp/fuzz.rounds
: > /tmp/fuzz.bad
: > /tmp/fuzz.checked
while [ $done_n -lt $N ]; do
	n=$CHUNK
	[ $((N - done_n)) -lt $n ] && n=$((N - done_n))
	sr_run fuzz fuzz $n $((SEED + done_n))
	runs=$((runs + 1))
	if [ $SR_RC != 0 ] || ! grep -q '^fuzz total' /tmp/fuzz.out; then
		bad_runs=$((bad_runs + 1))
		echo "run from seed $((SEED + done_n)) exited $SR_RC: $(tail -n 3 /tmp/fuzz.out | tr '\n' ' ')" >> /tmp/fuzz.bad
	fi
	awk -F'|' -v p=$SR_PID '$1 == p' /tmp/fuzz.ev > /tmp/fuzz.pid.ev
	awk -f "$EXPECT" /tmp/fuzz.out /tmp/fuzz.pid.ev > /tmp/fuzz.expect
	read -r _ a b c d e f <<< "$(grep '^SUMMARY' /tmp/fuzz.expect)"
	expected=$((expected + a)) events=$((events + b)) ok=$((ok + c))
	wrong=$((wrong + d)) short=$((short + e)) none=$((none + f))
	grep -v '^SUMMARY' /tmp/fuzz.expect | head -n 5 >> /tmp/fuzz.bad
	grep '^fuzz [0-9]' /tmp/fuzz.out >> /tmp/fuzz.rounds
	grep -o '^expect fuzz-[0-9]* prefix=[0-9]*' /tmp/fuzz.out | sed 's/.*=//' >> /tmp/fuzz.checked
	t=$(sed -n 's/^fuzz total: .*; \([0-9.]*\) s .*/\1/p' /tmp/fuzz.out)
	prog_s=$(awk -v a="$prog_s" -v b="${t:-0}" 'BEGIN { print a + b }')
	done_n=$((done_n + n))
done
secs=$(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { printf "%.1f", e - s }')

# per class (fuzz I VERSION CLASS SIZE bytes lib=K RESULT)
echo "rounds by class (tried, rejected by the kernel, registered, of those dropped as corrupt / taken though libusf rejects them):"
awk '{
	c = $4; t[c]++
	if ($8 == "kept" || $8 == "dropped") { r[c]++; if ($8 == "dropped") d[c]++; if ($7 == "lib=-1") l[c]++ }
	else { j[c]++; e[$8]++ }
} END {
	for (c in t)
		printf "  %-12s %7d %7d %7d %7d %7d\n", c, t[c], j[c], r[c], d[c], l[c]
	for (x in e)
		printf "  rejected with %s: %d\n", x, e[x]
}' /tmp/fuzz.rounds
reg=$(awk '$8 == "kept" || $8 == "dropped"' /tmp/fuzz.rounds | wc -l)
dropped=$(awk '$8 == "dropped"' /tmp/fuzz.rounds | wc -l)
echo "fuzz: $N rounds in $runs runs, $secs s in the guest ($prog_s s in the program's loops);" \
	"$reg registered, $((N - reg)) rejected, $dropped dropped as corrupt by a lookup"
echo "fuzz: stats sections_added +$(($(stat sections_added) - added))" \
	"sections_corrupt +$(($(stat sections_corrupt) - corrupt))" \
	"sections_removed +$(($(stat sections_removed) - removed))" \
	"fallbacks_not_covered +$(($(stat fallbacks_not_covered) - notcov))" \
	"fallbacks_bad_row +$(($(stat fallbacks_bad_row) - badrow))"
echo "fuzz: frames checked per stack (6: all; fewer where the rules that applied were not the valid ones):" \
	"$(sort -n /tmp/fuzz.checked | uniq -c | awk '{ printf "%s%s: %s", (NR > 1 ? ", " : ""), $2, $1 }')"
echo "fuzz: stacks: $expected expected, $events events, $ok as allowed, $wrong wrong, $short short, $none without a stack"

check "fuzz: every run finished ($bad_runs did not)" test $bad_runs = 0
check "fuzz: one traced call per round ($events events for $N rounds)" test "$events" = "$N" -a "$expected" = "$N"
check "fuzz: no wrong frame ($wrong; $(head -n 3 /tmp/fuzz.bad | tr '\n' ' '))" test "$wrong" = 0
check "fuzz: no exact stack cut short ($short)" test "$short" = 0
check "fuzz: every call has its stack ($none without)" test "$none" = 0
check "fuzz: the kernel rejected some sections and took some" test "$reg" -gt 0 -a "$reg" -lt "$N"

trace_clear
echo 1408 > $T/buffer_size_kb
finish
