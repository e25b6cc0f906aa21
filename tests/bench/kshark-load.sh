#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Loading a trace in libkshark (as KernelShark loads it) with the KernelShark
# plugin against without it (kernelshark-plugin/tests/kshark-load-bench.c),
# measured two ways (tests/bench/host-measure.sh): the instructions of the
# process, which repeat exactly and which the goal is judged on, and the CPU
# time of the load in interleaved rounds, with its spread. "all" is the load
# followed by the Info of the last rows: with the plugin that stitches the
# whole trace (it stitches as far as lookups need), so the peak RSS is that
# of the stitched results.
#
#   tests/bench/kshark-load.sh [ROUNDS]      (default 7)
#
# The traces: the committed fixture's records (cookie, sys_enter, sys_exit,
# three file entries, stack, sys_enter, sys_exit, stack: 10 per repeat)
# repeated KSHARK_BENCH_REPEAT times (default 100000: 1 M records, 200,000
# stacks of 7 frames) for the CPU time, and a fifth of that for the
# instructions (valgrind: about 40 times as long), by
# tests/fixtures/make-buffers-fixture.py, version 6. The goal is at most
# 1.3x the instructions of the load without the plugin. A CPU-time ratio
# that spreads more than its effect (or more than 0.02) is noise, named on a
# line "  NOISE: ..."; the script exits 0 still (non-zero: it could not
# measure; a missed goal is its "goal: ...: MISSED" line, make bench judges it).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/bench/host-measure.sh"
RUNS=${1:-7}
REPEAT=${KSHARK_BENCH_REPEAT:-100000}
ks=${USTACK_KSHARK_DIR:-$top/build/kernelshark-plugin}
[ -x "$ks/kshark-load-bench" ] || { echo "no $ks/kshark-load-bench (make kernelshark-plugin)" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "no /usr/bin/time (apt-get install time)" >&2; exit 1; }
command -v valgrind > /dev/null || { echo "no valgrind (apt-get install valgrind)" >&2; exit 1; }

dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
trace-cmd convert -i "$top/tests/fixtures/plugin/sample.dat" -o "$dir/src.dat" \
	--file-version 6 --compression none >/dev/null 2>&1 || exit 1
for r in "$REPEAT" $((REPEAT / 10)) $((REPEAT / 5)); do
	python3 "$top/tests/fixtures/make-buffers-fixture.py" "$dir/src.dat" "$dir/r$r.dat" \
		--top stacks --repeat "$r" || exit 1
done

# bench MODE: the command line of a load in MODE
bench() {
	echo "$ks/kshark-load-bench"
	[ "$1" = with ] && echo "-p $ks/plugin-ustack.so"
}

# the instructions: "LOAD ALL" of MODE on TRACE
insn() {
	local load all

	# shellcheck disable=SC2046
	load=$(hm_insn KSHARK_BENCH_NOINFO=1 $(bench "$1") "$2") || return 1
	# shellcheck disable=SC2046
	all=$(hm_insn KSHARK_BENCH_NOINFO=1 KSHARK_BENCH_STITCH=1 $(bench "$1") "$2") || return 1
	echo "$load $all"
}
# at two lengths, the line through them: "FIXED PER-RECORD" of load and all
# per mode, in fit.MODE; the counts in insn.MODE
for mode in without with; do
	for r in $((REPEAT / 10)) $((REPEAT / 5)); do
		insn $mode "$dir/r$r.dat" || { echo "kshark: valgrind gave no count" >&2; exit 1; }
	done > "$dir/insn.$mode"
	{ read -r l1 a1 && read -r l2 a2; } < "$dir/insn.$mode"
	echo "$(hm_line "$REPEAT" "$l1" $((REPEAT * 2)) "$l2") $(hm_line "$REPEAT" "$a1" \
		$((REPEAT * 2)) "$a2")" > "$dir/fit.$mode"
done
# insn_ratio COLUMN RECORDS: with against without at RECORDS (COLUMN 1: load, 3: all)
insn_ratio() {
	local w p

	w=$(cut -d' ' -f"$1,$(($1 + 1))" "$dir/fit.without")
	p=$(cut -d' ' -f"$1,$(($1 + 1))" "$dir/fit.with")
	hm_at "$p" "$w" "$2"
}

# the rounds: "ROUND MODE LOAD-CPU-MS PEAK-KB" into load, the same with the
# load and stitching CPU time into all; the entries loaded into entries
for i in $(seq 1 "$RUNS"); do
	for mode in without with; do
		# shellcheck disable=SC2046
		KSHARK_BENCH_NOINFO=1 KSHARK_BENCH_STITCH=1 /usr/bin/time -f 'RSS %M' \
			$(bench $mode) "$dir/r$REPEAT.dat" 2>"$dir/err" | tail -n 1 >"$dir/line"
		read -r _ entries _ cpu stitch <"$dir/line"
		[ -n "${stitch:-}" ] || { echo "kshark: kshark-load-bench failed: $(tail -n 2 "$dir/err")" >&2; exit 1; }
		rss=$(awk '/^RSS/ { print $2 }' "$dir/err")
		echo "$i $mode $cpu $rss" >> "$dir/load"
		echo "$i $mode $(awk -v a="$cpu" -v b="$stitch" 'BEGIN { print a + b }') $rss" >> "$dir/all"
	done
done
hm_rows "$dir/load" > "$dir/load.rows"
hm_rows "$dir/all" > "$dir/all.rows"

r() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3fx", a / b }'; }
m() { awk -v n="$1" 'BEGIN { printf "%.1f", n / 1e6 }'; }
echo "libkshark load (open, buffers, plugin init, kshark_load_all_entries), with and"
echo "without the plugin; all: the load, then the Info of the last rows (with the"
echo "plugin: the whole trace stitched)."
echo "instructions of the process (valgrind, a run repeats exactly), at $REPEAT and"
echo "$((REPEAT * 2)) records; the line through them: fixed + per record x records:"
printf '  %-20s %12s %10s %12s %10s\n' "" "load Minsn" "per record" "all Minsn" "per record"
for mode in without with; do
	while read -r l a; do
		read -r _ pl _ pa < "$dir/fit.$mode"
		printf '  %-20s %12s %10s %12s %10s\n' "$mode the plugin" "$(m "$l")" "$pl" "$(m "$a")" "$pa"
	done < "$dir/insn.$mode"
done
echo "CPU time, $entries records, median of $RUNS rounds (modes interleaved within a round);"
echo "ratio: the median of the rounds' ratios, spread = q3 - q1; insn: the ratio of"
echo "instructions at $entries records, from the lines above:"
printf '  %-20s %8s %8s %7s %7s %8s %8s %7s %7s %10s\n' "" "load ms" ratio spread insn \
	"all ms" ratio spread insn "peak KB"
noisy=0
while read -r mode lc lr llo lhi rss && read -r _ ac ar alo ahi _ <&3; do
	il=1.000 ia=1.000
	[ "$mode" = with ] && il=$(insn_ratio 1 "$entries") ia=$(insn_ratio 3 "$entries")
	printf '  %-20s %8s %7.3fx %7.3f %6sx %8s %7.3fx %7.3f %6sx %10s\n' "$mode the plugin" "$lc" \
		"$lr" "$(awk -v a="$llo" -v b="$lhi" 'BEGIN { print b - a }')" "$il" "$ac" "$ar" \
		"$(awk -v a="$alo" -v b="$ahi" 'BEGIN { print b - a }')" "$ia" "$rss"
	[ "$mode" = with ] || continue
	for what in load all; do
		if [ $what = load ]; then set -- "$lr" "$llo" "$lhi"; else set -- "$ar" "$alo" "$ahi"; fi
		hm_noisy "$@" || continue
		noisy=1
		hm_say_noise "$what" "$@"
	done
done < "$dir/load.rows" 3< "$dir/all.rows"
awk -v r="$(insn_ratio 1 "$entries")" -v n="$entries" 'BEGIN {
	printf "goal: KernelShark load of %d records, instructions with the plugin against without (at most 1.30x): %s, %.3fx\n",
		n, (r > 0 && r <= 1.3) ? "met" : "MISSED", r
}'
[ $noisy = 0 ] || echo "kshark bench: rows whose spread exceeds their effect (NOISE, above): not figures" >&2
exit 0
