#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Runs in the guest (scripts/bench.sh): perf record of ustack-bench
# (system calls from a 16-function-deep stack) with
#   --call-graph fp        user callchain walked in place at every sample
#   --call-graph dwarf     8 KiB of user stack copied at every sample
#   --call-graph fp,defer  a cookie at the sample, the chain once per entry
# Per mode: perf.data bytes per sample (the SAMPLE and CALLCHAIN_DEFERRED
# records, summed by perf-data-sizes.py) and the program's time per call against
# its time without perf. Two workloads:
#   cpu-clock  cpu-clock sampling every 100 us of task time
#   deep-clock the same with 16 more frames (35 in all): the ABI's fixed
#              cost per deferred chain against a longer in-place chain
#   syscalls   sys_enter_getppid and sys_exit_getppid, every event
#              (two samples per kernel entry, one deferred chain; the
#              samples column says whether any were lost: 2 per call)
# All rows come from this one boot, modes interleaved within a round.
# make bench runs it under instruction counting (1 ns = 1 instruction).
# Every row prints the spread of its ns/call (q3 - q1; max - min for 3
# rounds); a mode whose per-round cost over "none" spreads more than its
# median is reported as noise ("  NOISE: ..."), and the script exits 0 still
# (non-zero only when it could not measure).
. "$(dirname "$0")/../lib/result.sh"
. "$(dirname "$0")/../lib/ustack.sh"

PERF=$USTACK_TOP/build/perf/perf
BENCH=$USTACK_PROGS/ustack-bench
ROUNDS=${BENCH_ROUNDS:-3}
MODES="fp dwarf fp,defer"

if [ ! -x "$PERF" ]; then
	echo "perf bench: SKIP: no $PERF (make perf)"
	exit 0
fi
dir=$(mktemp -d /tmp/perf-bench.XXXXXX)
cd "$dir" || exit 1
echo -1 > /proc/sys/kernel/perf_event_paranoid
"$BENCH" 10 > /dev/null	# warm the page cache

# record WORKLOAD MODE: prints "bytes_per_sample ns_per_call samples"
record() {
	local calls args deeper=0

	case $1 in
	cpu-clock)	calls=${BENCH_PERF_CALLS:-300000}
			args="-e cpu-clock -c 100000" ;;
	deep-clock)	calls=${BENCH_PERF_CALLS:-300000}
			args="-e cpu-clock -c 100000"
			deeper=16 ;;
	syscalls)	calls=${BENCH_PERF_SYSCALLS:-1000}
			args="-e syscalls:sys_enter_getppid -e syscalls:sys_exit_getppid -c 1" ;;
	esac
	if [ "$2" = none ]; then
		echo "0 $("$BENCH" "$calls" $deeper | sed -n 's/^ns_per_call //p') 0"
		return
	fi
	# shellcheck disable=SC2086
	"$PERF" record -q -m 8192 $args --call-graph "$2" -o p.data -- \
		"$BENCH" "$calls" $deeper > out 2> err || { cat err >&2; echo "0 0 0"; return; }
	read -r n b <<< "$("$USTACK_TOP/tests/bench/perf-data-sizes.py" p.data)" || n=0
	echo "$((n ? b / n : 0)) $(sed -n 's/^ns_per_call //p' out) $n"
	rm -f p.data p.data.old
}

noisy=0
clock=
[ -n "${USTACK_ICOUNT:-}" ] && clock=" (instruction counting: 1 ns = 1 instruction)"
echo "perf record of ustack-bench (16-function-deep stack), median of $ROUNDS rounds$clock:"
for wl in ${BENCH_PERF_WORKLOADS:-cpu-clock deep-clock syscalls}; do
	echo
	printf '%-10s %-9s %9s %9s %7s %12s %9s\n' "$wl" mode samples "ns/call" spread "bytes/sample" slowdown
	for mode in none $MODES; do
		m=${mode//[,]/_}
		eval "b_$m= t_$m= n_$m= d_$m="
	done
	for r in $(seq 1 "$ROUNDS"); do
		for mode in none $MODES; do
			read -r b t n <<< "$(record "$wl" "$mode")"
			m=${mode//[,]/_}
			[ "$mode" = none ] && tn=$t
			eval "b_$m=\"\$b_$m $b\" t_$m=\"\$t_$m $t\" n_$m=\"\$n_$m $n\""
			eval "d_$m=\"\$d_$m $((t - tn))\""
		done
	done
	for mode in none $MODES; do
		m=${mode//[,]/_}
		eval "b=\$(median \$b_$m) t=\$(median \$t_$m) n=\$(median \$n_$m)"
		read -r lo hi <<< "$(eval "quartiles \$t_$m")"
		[ "$mode" = none ] && t0=$t
		awk -v wl="$wl" -v m="$mode" -v b="$b" -v t="$t" -v n="$n" -v t0="$t0" -v sp=$((hi - lo)) 'BEGIN {
			printf "%-10s %-9s %9s %9s %7s %12s %8.2fx\n", "", m, n, t, sp, b, (t0 > 0 ? t / t0 : 0) }'
		eval "B_${wl//-/_}_$m=$b T_${wl//-/_}_$m=$t"
		[ "$mode" = none ] && continue
		eval "effect_noisy $wl/$mode ns \$d_$m" && noisy=1
	done
	eval "bf=\$B_${wl//-/_}_fp bd=\$B_${wl//-/_}_dwarf bx=\$B_${wl//-/_}_fp_defer"
	eval "tf=\$T_${wl//-/_}_fp td=\$T_${wl//-/_}_dwarf tx=\$T_${wl//-/_}_fp_defer"
	awk -v bf="$bf" -v bd="$bd" -v bx="$bx" -v tf="$tf" -v td="$td" -v tx="$tx" -v t0="$t0" 'BEGIN {
		printf "  fp,defer bytes/sample: %.2fx fp (goal <= 1.2x), 1/%.1f of dwarf (goal >= 1/20)\n",
			(bf > 0 ? bx / bf : 0), (bx > 0 ? bd / bx : 0)
		printf "  perf cost per call (minus no perf): fp %d ns, dwarf %d ns, fp,defer %d ns\n",
			tf - t0, td - t0, tx - t0 }'
done
cd / && rm -rf "$dir"
[ $noisy = 0 ] || echo "perf bench: rows whose spread exceeds their effect (NOISE, above): not figures" >&2
exit 0
