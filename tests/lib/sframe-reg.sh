# SPDX-License-Identifier: GPL-2.0
# Guest-side helpers of the tests of ustack-sframe-reg (SFrame sections a
# program registers through /dev/sframe). Sourced after result.sh and
# ustack.sh.

REG=$USTACK_PROGS/sframe/ustack-sframe-reg
EXPECT=$USTACK_TOP/tests/lib/sframe-expect.awk
STATS=/sys/kernel/debug/unwind_user/stats
USF=$USTACK_TOP/build/sframe/ustack-sframe

[ -r $STATS ] || mount -t debugfs none /sys/kernel/debug 2>/dev/null

# stat NAME: a counter of the unwinder
stat() { awk -v k="$1" '$1 == k { print $2 }' $STATS; }

# sr_ready: SKIP everything (and finish) when the program or the device is
# missing
sr_ready() {
	if [ ! -x "$REG" ]; then
		skip "sframe-reg" "no $REG (make progs)"
		finish
	fi
	if [ ! -c /dev/sframe ]; then
		skip "sframe-reg" "no /dev/sframe in this kernel"
		finish
	fi
}

# sr_run NAME ARGS...: ustack-sframe-reg ARGS with its getppid calls
# traced (deferred user stacks). Its output in /tmp/NAME.out, its exit
# status in SR_RC, its pid in SR_PID, the stitched events of the getppid
# calls of every process in /tmp/NAME.ev (pid|cpu|cookie|event|frames),
# the unwind= words of its stack entries in /tmp/NAME.unwind.
sr_run() {
	local name=$1

	shift
	getppid_traced /tmp/$name.out "$REG" "$@"
	SR_PID=$pid
	SR_RC=$rc
	stitched | awk -F'|' '$4 ~ /getppid/' > /tmp/$name.ev
	grep 'user_unwind_stack:' $T/trace | grep -o 'unwind=[a-z+]*' | sort | uniq -c > /tmp/$name.unwind
}

# sr_events NAME PID: the frames of PID's events of run NAME, one a line
sr_events() { awk -F'|' -v p="$2" '$1 == p { print $5 }' /tmp/$1.ev; }

# sr_expect TEST NAME PID: PID's stacks of run NAME against the program's
# expect lines (sframe-expect.awk): PASS when all are as expected
sr_expect() {
	local test=$1 name=$2 pid=$3 sum n nv ok wrong short none

	awk -F'|' -v p="$pid" '$1 == p' /tmp/$name.ev > /tmp/$name.pid.ev
	awk -f "$EXPECT" /tmp/$name.out /tmp/$name.pid.ev > /tmp/$name.expect
	sum=$(grep '^SUMMARY' /tmp/$name.expect)
	read -r _ n nv ok wrong short none <<< "$sum"
	if [ "${n:-0}" -gt 0 ] && [ "$ok" = "$n" ] && [ "$nv" = "$n" ]; then
		pass "$test ($n stacks as expected)"
	else
		fail "$test" "$n expected, $nv events, $ok ok, $wrong wrong, $short short, $none without a stack: $(grep -v '^SUMMARY' /tmp/$name.expect | head -n 3 | tr '\n' ' ')"
	fi
}

# sr_chain TEST NAME PID COUNT "CHAIN": COUNT events of PID, each stack
# starting with exactly the symbols CHAIN
sr_chain() {
	local test=$1 name=$2 pid=$3 count=$4 n exact none

	read -r n exact none <<< "$(CHAIN=$5 sr_events "$name" "$pid" | CHAIN=$5 chain_count)"
	check "$test: $count events, each with exactly $5 ($((n - exact)) not, $none without)" \
		test "$n" = "$count" -a "$exact" = "$count"
}

# sr_deep_syms NAME: the symbols of each stack of run NAME ($SR_PID's), one a line
sr_deep_syms() { sr_events "$1" $SR_PID | while read -r f; do symbols "$f"; done; }

# sr_squeeze: runs of a symbol written once with a count ("sr_deep*101")
sr_squeeze() {
	awk '{
		out = ""; n = 0
		for (i = 1; i <= NF + 1; i++) {
			if (i <= NF && $i == prev) { n++; continue }
			if (i > 1) out = out " " prev (n > 1 ? "*" n : "")
			prev = $i; n = 1
		}
		print substr(out, 2)
	}'
}

# sr_squeeze_line: result lines with their runs of sr_deep squeezed
sr_squeeze_line() { sed 's/\(sr_deep \)\{2,\}/sr_deep... /g'; }

# sr_show NAME: each stack of run NAME, squeezed, for the log
sr_show() { sr_deep_syms "$1" | sr_squeeze | sed "s/^/$1: /"; }
