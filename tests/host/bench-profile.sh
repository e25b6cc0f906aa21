#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tests/bench/profile-report.py, make bench's instruction profile: from a
# System.map and eight snapshots of insn-profile (none, inplace, deferred,
# none), the instructions per call each function adds over the mean of the
# two "none" runs, grouped; the CSV; and the check against the -icount
# CSV's eq8 rows (exit status 1 when a total is more than 5% off). On
# snapshots made up here, with known answers.
. "$(dirname "$0")/../lib/result.sh"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
report=$USTACK_TOP/tests/bench/profile-report.py
cat > "$work/System.map" <<'MAP'
ffffffff81000000 T ring_buffer_lock_reserve
ffffffff81000100 T arch_stack_walk_user
ffffffff81000200 T unwind_user
ffffffff81000300 T trace_uu_callback
ffffffff81000400 T task_work_run
ffffffff81000500 t something_else
MAP
# snap N BLOCK:INSNS:RUNS...: a snapshot of cumulative counts
snap() {
	local n=$1 b
	shift
	for b in "$@"; do echo "$b" | tr : ' '; done > "$work/s.$n"
}
# 10 calls per run. Blocks: ffffffff81000010 (ring buffer, 10 insns),
# ffffffff81000110 (in-place walk, 50), ffffffff81000210 (unwind_user, 40),
# ffffffff81000310 (callback, 20), ffffffff81000410 (task work, 7), and
# ffffffff81000510 (other, 3 insns) that runs 10 times more in the second
# "none" run than in the first (the mean of both is taken), 7fff00001000 user.
snap 0 ffffffff81000510:3:100 7fff00001000:5:1000
snap 1 ffffffff81000510:3:110 7fff00001000:5:1010
snap 2 ffffffff81000510:3:110 7fff00001000:5:1010
snap 3 ffffffff81000510:3:125 7fff00001000:5:1020 ffffffff81000010:10:10 ffffffff81000110:50:10
snap 4 ffffffff81000510:3:125 7fff00001000:5:1020 ffffffff81000010:10:10 ffffffff81000110:50:10
snap 5 ffffffff81000510:3:140 7fff00001000:5:1030 ffffffff81000010:10:20 ffffffff81000110:50:10 \
	ffffffff81000210:40:10 ffffffff81000310:20:10 ffffffff81000410:7:10
snap 6 ffffffff81000510:3:140 7fff00001000:5:1030 ffffffff81000010:10:20 ffffffff81000110:50:10 \
	ffffffff81000210:40:10 ffffffff81000310:20:10 ffffffff81000410:7:10
snap 7 ffffffff81000510:3:160 7fff00001000:5:1040 ffffffff81000010:10:20 ffffffff81000110:50:10 \
	ffffffff81000210:40:10 ffffffff81000310:20:10 ffffffff81000410:7:10
# other: none runs 10 and 20 (mean 15), inplace and deferred 15: adds 0.
# inplace: 10 + 50 = 60 per call; deferred: 10 + 40 + 20 + 7 = 77 per call.
printf 'label,epe,walk_frames,mode,bytes,ns,ns_q1,ns_q3,stack_bytes,stack_ns\n' > "$work/good.csv"
printf 'icount,eq8,8,inplace,0,0,0,0,0,61\nicount,eq8,8,deferred,0,0,0,0,0,76\n' >> "$work/good.csv"
sed 's/,76$/,90/' "$work/good.csv" > "$work/bad.csv"

"$report" "$work/System.map" "$work/s" 10 "$work/p.csv" "$work/good.csv" > "$work/out" 2> "$work/err"
rc=$?
check "exits 0 when the totals agree with the -icount rows ($rc; $(head -c 200 "$work/err"))" \
	test "$rc" = 0
check "inplace: 60 instructions per call" grep -qx 'inplace: 60 instructions per call' "$work/out"
check "deferred: 77 instructions per call" grep -qx 'deferred: 77 instructions per call' "$work/out"
check "the groups add up: deferred walk 40, stack entry 20, return to user space 7" \
	sh -c "grep -qE '^  deferred walk +40$' '$work/out' &&
	       grep -qE '^  stack entry +20$' '$work/out' &&
	       grep -qE '^  return to user space +7$' '$work/out'"
check "what the two none runs differ in cancels out (other, user space)" \
	sh -c "! grep -qE 'something_else|user space\\]' '$work/out'"
check "the CSV has the functions per mode" \
	sh -c "grep -qx 'deferred,deferred walk,unwind_user,40.0' '$work/p.csv' &&
	       grep -qx 'inplace,in-place walk,arch_stack_walk_user,50.0' '$work/p.csv'"
"$report" "$work/System.map" "$work/s" 10 "$work/p.csv" "$work/bad.csv" > "$work/out" 2>&1
rc=$?
check "exits 1 when a total is more than 5% off the -icount row ($rc)" test "$rc" = 1
check "and says which" grep -q 'the -icount clock gives 90: DISAGREES' "$work/out"
rm "$work/s.7"
"$report" "$work/System.map" "$work/s" 10 "$work/p.csv" > "$work/out" 2>&1
rc=$?
check "a missing snapshot is an error, not a traceback ($rc)" \
	sh -c "test $rc = 1 && ! grep -q Traceback '$work/out'"
finish
