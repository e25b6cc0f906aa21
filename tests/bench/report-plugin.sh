#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make bench: "trace-cmd report" with the trace-cmd plugin against without it,
# on the same traces, output to /dev/null, on the host: instructions, CPU time
# and peak memory, as ratios, and the memory the plugin adds at two trace
# lengths (it must not grow with the trace). tests/bench/host-measure.sh says
# how the two measures are taken.
#
#   tests/bench/report-plugin.sh            on the host: records the traces in
#                                           a guest, then measures report here
#   tests/bench/report-plugin.sh record DIR CALLS...  in the guest: records into DIR
#   tests/bench/report-plugin.sh nostacks   on the host only: the rows of a trace
#                                           without deferred stacks (below)
#
# The traces. One without stacks (a stock kernel's: no user_unwind_* events;
# made by tests/fixtures/make-buffers-fixture.py from the committed fixture's
# getppid events, 4 per call, version 7 with zstd as trace-cmd records by
# default): the plugin must do nothing there (goal: at most 1.02x). And
# ustack-sample's getppid calls under stock "trace-cmd record -O
# user_stacktrace_deferred -e raw_syscalls", about 3 records per call
# (sys_enter, sys_exit, the stack of 7 frames; a cookie entry only where the
# CPU's entries do not say it already).
#
# Instructions are counted on short traces, REPORT_BENCH_CALLS / 10 calls
# (default 25000) and twice that; the line through the two counts gives the
# ratio at the lengths below, and the goals are judged on it. CPU time and memory are
# measured on REPORT_BENCH_CALLS calls (default 250000) and twice that, in
# REPORT_BENCH_RUNS rounds (default 5; 7 for the trace without stacks), and
# a row whose ratio spreads more than its effect (or more than 0.02) is
# reported as noise ("  NOISE: ..."), and the script exits 0 still: it exits
# non-zero only when it could not measure. With BENCH_OUT set, the rows
# also go to BENCH_OUT/report.csv.
#
# Each goal gets a line "goal: WHAT (at most R): met|MISSED, RATIO": the
# instructions on the trace without stacks at most 1.02x, on the trace with
# stacks at most 1.3x, and the memory the plugin adds the same at both
# lengths. A CPU-time row that is not noise and whose ratio is more than
# 0.1 from the instructions' is marked: the measures disagree.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
CALLS=${REPORT_BENCH_CALLS:-250000}
RUNS=${REPORT_BENCH_RUNS:-5}
SHORT=$((CALLS / 10))

if [ "${1:-}" = record ]; then
	dir=$2
	shift 2
	cd /tmp || exit 1
	# into the guest's tmpfs first: the recorder keeps up there, no overruns
	for n in "$@"; do
		trace-cmd record -q -b 65536 -o /tmp/r.dat -O user_stacktrace_deferred \
			-e raw_syscalls -F "$top/build/progs/ustack-sample" "$n" > /dev/null || exit 1
		echo "recorded $n calls: $(trace-cmd report -N --stat -i /tmp/r.dat 2>/dev/null |
			grep -c 'overrun: [1-9]') CPUs with overruns"
		cp /tmp/r.dat "$dir/r$n.dat" && rm /tmp/r.dat
	done
	exit 0
fi

. "$top/tests/bench/host-measure.sh"
PLUGIN_DIR=${USTACK_PLUGIN_DIR:-$top/build/trace-cmd-plugin}
[ -r "$PLUGIN_DIR/plugin_ustack.so" ] || { echo "no $PLUGIN_DIR/plugin_ustack.so" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "no /usr/bin/time (apt-get install time)" >&2; exit 1; }
command -v valgrind > /dev/null || { echo "no valgrind (apt-get install valgrind)" >&2; exit 1; }

work=$(mktemp -d)
res=
trap 'rm -rf "$work" ${res:+"$res"}' EXIT
mkdir "$work/none"
noisy=0
csv=${BENCH_OUT:+$BENCH_OUT/report.csv}
[ -z "$csv" ] || echo "trace,records,mode,measure,value,ratio,ratio_q1,ratio_q3,peak_kb" > "$csv"

label() {
	case $1 in
	without) echo "without the plugin" ;;
	with) echo "with the plugin" ;;
	nosym) echo "with the plugin -O ustack_nosym" ;;
	esac
}

# report MEASURE MODE TRACE: one run of report on TRACE in MODE (without:
# an empty plugin directory), measured by hm_MEASURE
report() {
	local pd=$PLUGIN_DIR opt=()

	case $2 in
	without) pd=$work/none ;;
	nosym) opt=(-O ustack_nosym) ;;
	esac
	"hm_$1" TRACEEVENT_PLUGIN_DIR="$pd" trace-cmd report "${opt[@]}" -i "$3"
}

records() { trace-cmd report -N -i "$1" 2>/dev/null | grep -vc '^cpus='; }

# insn_fit NAME1 TRACE1 NAME2 TRACE2 MODE...: the instructions of each mode
# on two lengths of a trace, a row each, and the line through them: fixed +
# per record x records. FIT_MODE holds "FIXED PER-RECORD" for insn_ratio.
insn_fit() {
	local n1=$1 f1=$2 n2=$3 f2=$4 r1 r2 mode i1 i2 fit row name recs n
	shift 4
	r1=$(records "$f1")
	r2=$(records "$f2")
	for mode in "$@"; do
		i1=$(report insn "$mode" "$f1") && i2=$(report insn "$mode" "$f2") ||
			{ echo "$n1, $mode: valgrind gave no count" >&2; return 1; }
		fit=$(hm_line "$r1" "$i1" "$r2" "$i2")
		eval "FIT_$mode=\$fit"
		set -- "$n1 $r1 $i1" "$n2 $r2 $i2"
		for row in "$@"; do
			read -r name recs n <<< "$row"
			printf '%-10s %9s  %-32s %8.1f %12.1f %11.1f\n' "$name" "$recs" "$(label "$mode")" \
				"$(awk -v n="$n" 'BEGIN { print n / 1e6 }')" \
				"$(awk -v f="${fit% *}" 'BEGIN { print f / 1e6 }')" "${fit#* }"
			[ -z "$csv" ] || echo "$name,$recs,$mode,insn,$n,,,," >> "$csv"
		done
	done
}

# insn_ratio MODE RECORDS: MODE's instructions against without's on a trace
# of RECORDS records, from the lines insn_fit drew
insn_ratio() {
	local fm fw

	eval "fm=\${FIT_$1:-} fw=\${FIT_without:-}"
	[ -n "$fm" ] && [ -n "$fw" ] || return 0
	hm_at "$fm" "$fw" "$2"
}

insn_head() {
	echo "instructions of the process (valgrind, a run repeats exactly), at two lengths;"
	echo "the line through them: fixed instructions + instructions per record x records"
	printf '%-10s %9s  %-32s %8s %12s %11s\n' trace records mode Minsn "fixed Minsn" "per record"
}

cpu_head() {
	echo "CPU time (user + system), median of $1 rounds (modes interleaved within a"
	echo "round); ratio: the median of the rounds' ratios, spread = q3 - q1; insn: the"
	echo "ratio of instructions at that length, from the lines above:"
	printf '%-10s %9s  %-32s %8s %8s %7s %7s %10s %9s\n' trace records mode "cpu ms" ratio spread \
		insn "peak KB" "added KB"
}

# cpu_rows NAME TRACE ROUNDS MODE...: ROUNDS rounds of the modes, a row per
# mode, the first the baseline. The added KB of "with" in ADDED_NAME, the
# ratio of instructions there in INSN_NAME.
cpu_rows() {
	local name=$1 f=$2 rounds=$3 recs i mode c r lo hi m m0='' ri line
	shift 3
	recs=$(records "$f")
	: > "$work/rounds"
	for i in $(seq 1 "$rounds"); do
		for mode in "$@"; do
			line=$(report cpu "$mode" "$f") ||
				{ echo "$name, $mode: trace-cmd report failed" >&2; return 1; }
			echo "$i $mode $line" >> "$work/rounds"
		done
	done
	while read -r mode c r lo hi m; do
		m0=${m0:-$m}
		ri=$(insn_ratio "$mode" "$recs")
		printf '%-10s %9s  %-32s %8s %7.3fx %7.3f %7s %10s %9s\n' "$name" "$recs" \
			"$(label "$mode")" "$c" "$r" "$(awk -v a="$lo" -v b="$hi" 'BEGIN { print b - a }')" \
			"${ri:+${ri}x}" "$m" $((m - m0))
		[ -z "$csv" ] || echo "$name,$recs,$mode,cpu_ms,$c,$r,$lo,$hi,$m" >> "$csv"
		[ "$mode" = with ] && eval "ADDED_$name=$((m - m0)) INSN_$name=$ri RECS_$name=$recs CPU_$name=$r"
		[ "$mode" = without ] && continue
		if hm_noisy "$r" "$lo" "$hi"; then
			hm_say_noise "$name, $(label "$mode")" "$r" "$lo" "$hi"
			noisy=1
		elif [ -n "$ri" ] && awk -v a="$r" -v b="$ri" 'BEGIN { exit !(a - b > 0.1 || b - a > 0.1) }'; then
			awk -v r="$r" -v i="$ri" 'BEGIN {
				printf "  the measures disagree: CPU time %.3fx, instructions %.3fx\n", r, i }'
		fi
	done < <(hm_rows "$work/rounds")
	return 0
}

# goal TEXT A MAX [NOTE]: one line saying whether the ratio A is at most MAX
goal() {
	awk -v t="$1" -v r="$2" -v max="$3" -v note="${4:-}" 'BEGIN {
		printf "goal: %s (at most %.2fx): %s, %.3fx%s\n", t, max,
			(r > 0 && r <= max) ? "met" : "MISSED", r, note == "" ? "" : " (" note ")"
	}'
}

# the trace without stacks, N calls (4 N records): TRACE
nostacks_trace() {
	python3 "$top/tests/fixtures/make-buffers-fixture.py" "$work/src.dat" "$work/v6.dat" \
		--no-ustack-formats --top nostacks --repeat "$1" &&
	trace-cmd convert -i "$work/v6.dat" -o "$2" > /dev/null 2>&1
}

# the rows of the trace without stacks, on the host
nostacks() {
	local runs=${REPORT_BENCH_NOSTACK_RUNS:-7}

	trace-cmd convert -i "$top/tests/fixtures/plugin/sample.dat" -o "$work/src.dat" \
		--file-version 6 --compression none > /dev/null 2>&1 &&
	nostacks_trace "$SHORT" "$work/ns1.dat" &&
	nostacks_trace $((2 * SHORT)) "$work/ns2.dat" &&
	nostacks_trace "$CALLS" "$work/ns.dat" || return 1
	rm -f "$work/v6.dat"
	echo "trace-cmd report, output to /dev/null (host), a trace without stacks (version 7):"
	insn_head
	insn_fit nostacks "$work/ns1.dat" nostacks "$work/ns2.dat" without with || return 1
	cpu_head "$runs"
	cpu_rows nostacks "$work/ns.dat" "$runs" without with || return 1
	# shellcheck disable=SC2154 # set by cpu_rows
	goal "no stacks, $RECS_nostacks records: instructions with the plugin against without" \
		"$INSN_nostacks" 1.02 "CPU time $(awk -v c="$CPU_nostacks" 'BEGIN { printf "%.3fx", c }')"
}
nostacks || { echo "the trace without stacks could not be measured" >&2; exit 1; }
if [ "${1:-}" = nostacks ]; then
	[ $noisy = 0 ] || echo "report bench: rows whose spread exceeds their effect (NOISE, above): not figures" >&2
	exit 0
fi

out=$("$top/scripts/guest-run.sh" --keep --timeout 1200 -- \
	"echo RES=\$USTACK_RES; bash $top/tests/bench/report-plugin.sh record \$USTACK_RES $SHORT $((2 * SHORT)) $CALLS $((2 * CALLS))" 2>&1)
res=$(echo "$out" | sed -n 's/^RES=//p' | tail -n 1)
echo
echo "$out" | grep '^recorded' | sort -u | sort -n -k2
[ -n "$res" ] && [ -r "$res/r$CALLS.dat" ] || { echo "$out" | tail -n 5; exit 1; }

echo
echo "trace-cmd report, output to /dev/null (host), ustack-sample's traces:"
insn_head
insn_fit "r$SHORT" "$res/r$SHORT.dat" "r$((2 * SHORT))" "$res/r$((2 * SHORT)).dat" without with \
	nosym ||
	exit 1
cpu_head "$RUNS"
for n in $CALLS $((2 * CALLS)); do
	f=$res/r$n.dat
	cpu_rows "r$n" "$f" "$RUNS" without with nosym || exit 1
	# what the read-ahead held: its bound, not the trace length; and that
	# the plugin did give stacks (else the figures above measure nothing)
	st=$(TRACEEVENT_PLUGIN_DIR=$PLUGIN_DIR trace-cmd report -O ustack_stats -i "$f" 2>&1 >/dev/null |
		sed -n 's/^plugin_ustack: /           read-ahead: /p')
	echo "$st"
	echo "$st" | grep -q ', [1-9][0-9]* with a stack' ||
		{ echo "r$n: the plugin gave no stacks" >&2; exit 1; }
done
for n in $CALLS $((2 * CALLS)); do
	eval "r=\$INSN_r$n recs=\$RECS_r$n c=\$CPU_r$n"
	goal "time with the plugin against without, $recs records, in instructions" "$r" 1.30 \
		"CPU time $(awk -v c="$c" 'BEGIN { printf "%.3fx", c }')"
done
# the memory the plugin adds flat (at twice the records, no more than 10%
# or 4 MB above)
a1='' a2=''
eval "a1=\$ADDED_r$CALLS a2=\$ADDED_r$((2 * CALLS))"
slack=$((a1 / 10 > 4096 ? a1 / 10 : 4096))
ok=met
[ "$a2" -le $((a1 + slack)) ] || ok=MISSED
echo "goal: the plugin's added memory does not grow with the trace: $ok, +$a1 KB, then +$a2 KB"
[ $noisy = 0 ] || echo "report bench: rows whose spread exceeds their effect (NOISE, above): not figures" >&2
exit 0
