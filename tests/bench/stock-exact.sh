#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Runs in the guest (scripts/bench.sh): exact stacks of a stock program
# (issue 39). Debian's sqlite3 shell runs a workload on a database in the
# guest's tmpfs (tables created, rows inserted one transaction each, then
# queried), with the unwind tables of sqlite3, its libraries and ld.so
# loaded (ustack-sframe load, as tests/guest/eh-stock.sh does). Every
# system call of it (raw_syscalls:sys_enter) is recorded, each mode in a
# run of its own:
#   none      no recording: the program's own CPU time
#   deferred  stock trace-cmd record -O user_stacktrace_deferred
#   dwarf     our perf record --call-graph dwarf (8 KiB of stack a sample)
#   dwarf32k  our perf record --call-graph dwarf,32768
# Per run: the program's CPU time (user + system of sqlite3 alone, from its
# rusage: ustack-cputime), the recorder's (the recorder's whole process
# tree, its children reaped, less the program's), the bytes of the file it
# wrote, and the CPU time to turn it into symbolized stacks, two ways each:
# every event's stack (trace-cmd report with the plugin; perf script) and
# the stacks folded with their counts (ustack-flame -K, user stacks only, as
# the recording has no kernel stacks; perf report -g folded).
# And, once, the same of /bin/true: what each costs before the first call.
# The modes are interleaved within a round; tests/bench/stock-exact.py
# prints the medians and, per round, perf's figure over deferred's, with
# their spread, and the goal lines. Once, the stacks: the deferred ones and
# those of dwarf (8 KiB) against dwarf,32768's, call by call.
#
#   stock-exact.sh [--rounds N] [--rows N]     (defaults 3 and 35)
#
# ROWS: rows inserted, each its own transaction (about 13 system calls).
# Every figure is measured in the QEMU guest (TCG, not hardware): under
# make bench's instruction counting (USTACK_ICOUNT) 1 ms of CPU time is a
# million guest instructions. Exits 0 when it measured (a goal missed is its
# "goal: ...: MISSED" line), non-zero when it could not.
. "$(dirname "$0")/../lib/result.sh"
. "$(dirname "$0")/../lib/ustack.sh"

ROUNDS=${BENCH_ROUNDS:-3}
ROWS=35
while [ $# -gt 0 ]; do
	case $1 in
	--rounds) ROUNDS=$2; shift ;;
	--rows) ROWS=$2; shift ;;
	esac
	shift
done
PERF=$USTACK_TOP/build/perf/perf
TOOL=$USTACK_TOP/build/sframe/ustack-sframe
FLAME=$USTACK_TOP/build/flamegraph/ustack-flame
CPUTIME=$USTACK_PROGS/ustack-cputime
PY=$USTACK_TOP/tests/bench/stock-exact.py
SQLITE=/usr/bin/sqlite3
export TRACEEVENT_PLUGIN_DIR=$USTACK_TOP/build/trace-cmd-plugin

for f in "$PERF" "$TOOL" "$FLAME" "$CPUTIME" "$SQLITE" "$(command -v trace-cmd)" \
	 "$TRACEEVENT_PLUGIN_DIR/plugin_ustack.so"; do
	[ -e "$f" ] || { echo "stock-exact: no ${f:-trace-cmd} (make all; apt-get install sqlite3)"; exit 1; }
done
[ -d $T/user_unwind_tables ] || { echo "stock-exact: no $T/user_unwind_tables"; exit 1; }
dir=$(mktemp -d /tmp/stock-exact.XXXXXX)
cd "$dir" || exit 1
echo -1 > /proc/sys/kernel/perf_event_paranoid
trace_clear

# the workload: a schema, ROWS inserts in a transaction each, queries
{
	echo "PRAGMA journal_mode=DELETE;"
	echo "CREATE TABLE item(id INTEGER PRIMARY KEY, name TEXT, price REAL, tag TEXT);"
	echo "CREATE INDEX item_tag ON item(tag);"
	for i in $(seq 1 "$ROWS"); do
		echo "INSERT INTO item(name, price, tag) VALUES('item $i', $i.5, 'tag$((i % 7))');"
	done
	echo "SELECT tag, count(*), sum(price) FROM item GROUP BY tag ORDER BY tag;"
	echo "SELECT name FROM item WHERE tag = 'tag3' ORDER BY price DESC LIMIT 3;"
	echo "UPDATE item SET price = price * 2 WHERE tag = 'tag1';"
	echo "DELETE FROM item WHERE id % 5 = 0;"
	echo "VACUUM;"
	echo "SELECT count(*) FROM item;"
} > work.sql

# the tables: sqlite3, every file ldd names for it, ld.so
files=$(ldd $SQLITE | awk '$3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }' |
	cat - <(echo $SQLITE) | xargs -n1 readlink -f | sort -u)
tw $T/user_unwind_tables/remove all
# shellcheck disable=SC2086
"$TOOL" load $files > load.out 2>&1
n=$(echo "$files" | wc -l)
if [ "$(grep -c 'loaded table' load.out)" != "$n" ]; then
	echo "stock-exact: ustack-sframe load: $(head -c 300 load.out)"
	exit 1
fi
echo "unwind tables loaded: $n files ($(echo $files | xargs -n1 basename | tr '\n' ' '))"
$SQLITE db ".read work.sql" > /dev/null 2>&1	# warm the page cache

# cputime FILE: "PROGRAM_US TOTAL_US" from FILE's cputime_us lines (the
# program's, the inner one, comes first; the recorder's tree's last)
cputime() {
	sed -n 's/^cputime_us //p' "$1" | sed -n '1p;$p' | tr '\n' ' '
}

# run MODE [COMMAND...]: one run of COMMAND (default: the workload);
# prints "prog_us rec_us bytes sym_us flame_us", its outputs left in
# MODE.* (MODE.rec: the recorder's and the program's stderr)
run() {
	local m=$1 p t b=0 s=0 fl=0 cg

	shift
	[ $# -gt 0 ] || set -- $SQLITE db ".read work.sql"
	rm -f db db-journal
	case $m in
	none)
		"$CPUTIME" "$@" > "$m.out" 2> "$m.rec"
		read -r p t <<< "$(cputime "$m.rec")"
		echo "$p 0 0 0 0"
		return ;;
	deferred)
		"$CPUTIME" trace-cmd record -q -o "$m.dat" -O user_stacktrace_deferred \
			-e raw_syscalls:sys_enter -F -c "$CPUTIME" "$@" > "$m.out" 2> "$m.rec"
		b=$(stat -c %s "$m.dat")
		s=$("$CPUTIME" trace-cmd report -i "$m.dat" 2>&1 > "$m.report" |
		    sed -n 's/^cputime_us //p')
		fl=$("$CPUTIME" "$FLAME" -K -o "$m.folded" "$m.dat" 2>&1 |
		     sed -n 's/^cputime_us //p') ;;
	dwarf|dwarf32k)
		cg=dwarf
		[ $m = dwarf32k ] && cg=dwarf,32768
		"$CPUTIME" "$PERF" record -q -e raw_syscalls:sys_enter --call-graph $cg -m 64M \
			-o "$m.data" -- "$CPUTIME" "$@" > "$m.out" 2> "$m.rec"
		b=$(stat -c %s "$m.data")
		s=$("$CPUTIME" "$PERF" script -i "$m.data" 2>&1 > "$m.script" |
		    sed -n 's/^cputime_us //p')
		fl=$("$CPUTIME" "$PERF" report -i "$m.data" --stdio --no-children \
			-g folded,0,caller,count 2>&1 > "$m.folded" | sed -n 's/^cputime_us //p') ;;
	esac
	read -r p t <<< "$(cputime "$m.rec")"
	echo "$p $((t - p)) $b ${s:-0} ${fl:-0}"
}

clock="wall-clock CPU time under QEMU TCG"
[ -n "${USTACK_ICOUNT:-}" ] && clock="QEMU instruction counting: 1 ms = 1,000,000 guest instructions"
echo "sqlite3 (Debian's, stock) on a $ROWS-row workload, every system call recorded;"
echo "$ROUNDS rounds, the modes interleaved; CPU time from rusage ($clock)"
echo "round,mode,prog_us,rec_us,bytes,sym_us,flame_us" > rounds.csv
for r in $(seq 1 "$ROUNDS"); do
	for m in none deferred dwarf dwarf32k; do
		read -r p c b s fl <<< "$(run $m)"
		echo "$r,$m,${p:-0},${c:-0},${b:-0},${s:-0},${fl:-0}" >> rounds.csv
		if [ "$m" != none ] && [ "$r" = 1 ]; then	# the stacks, from the first round
			case $m in
			deferred) trace-cmd report -O ustack_nosym -i $m.dat > $m.nosym 2>/dev/null ;;
			*) "$PERF" script -F comm,tid,event,trace,ip,dsoff --no-inline -i $m.data \
				> $m.frames 2>/dev/null ;;
			esac
		fi
		rm -f "$m".dat "$m".data "$m".report "$m".script "$m".folded
	done
done
# what each costs with no work to record: the same of /bin/true, once
for m in none deferred dwarf dwarf32k; do
	read -r p c b s fl <<< "$(run $m /bin/true)"
	echo "1,start-$m,${p:-0},${c:-0},${b:-0},${s:-0},${fl:-0}" >> rounds.csv
	rm -f "$m".dat "$m".data "$m".report "$m".script "$m".folded
done
python3 "$PY" stacks deferred.nosym dwarf32k.frames dwarf=dwarf.frames > stacks.out
grep -v '^diff\|^  ' stacks.out | sed 's/^/  /'
grep -A2 '^diff' stacks.out | head -n 9
[ -n "${USTACK_RES:-}" ] && cp rounds.csv stacks.out "$USTACK_RES/" 2>/dev/null
echo
python3 "$PY" table rounds.csv stacks.out
rc=$?
tw $T/user_unwind_tables/remove all
cd / && rm -rf "$dir"
exit $rc
