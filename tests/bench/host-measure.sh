# SPDX-License-Identifier: GPL-2.0
# make bench on the host (sourced): a command measured two ways, side by side.
#
# Instructions: those the process executes, counted by valgrind's cachegrind
# with no cache simulation. A run repeats exactly, as a guest row under
# QEMU's -icount does, so these are the figures goals are judged on. Under
# valgrind a run takes about 40 times as long: short inputs.
#
# CPU time: user + system time of the process (no time waiting for the
# machine), in rounds that run every mode once, one after the other: what
# slows a whole round (another job on the shared host) cancels in the ratio
# of a mode to the round's first mode. A row gives the median of its CPU
# times and the median of its ratios, with their spread, q3 - q1 (for up to
# 3 rounds, max - min). Instructions do not see what CPU time does: cache
# misses and memory stalls.

# hm_insn [VAR=VALUE...] CMD [ARG...]: the instructions CMD executes (the
# process itself, not its children), on stdout; its output is thrown away.
# Returns 1 when CMD failed or valgrind gave no count.
hm_insn() {
	local vars=() log n rc

	while [[ "${1:-}" == *=* ]]; do vars+=("$1"); shift; done
	log=$(mktemp)
	env "${vars[@]}" valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null \
		--log-file="$log" "$@" > /dev/null 2>&1
	rc=$?
	n=$(sed -n 's/^==[0-9]*== I *refs: *//p' "$log" | tr -d ,)
	rm -f "$log"
	[ "$rc" = 0 ] && [ -n "$n" ] || return 1
	echo "$n"
}

# hm_cpu [VAR=VALUE...] CMD [ARG...]: "cpu-ms peak-rss-kb" of one run of CMD
# (user + system), its output thrown away. Returns 1 when CMD failed.
hm_cpu() {
	local vars=() line

	while [[ "${1:-}" == *=* ]]; do vars+=("$1"); shift; done
	line=$(env "${vars[@]}" /usr/bin/time -f 'HMTIME %x %U %S %M' "$@" 2>&1 >/dev/null |
		awk '$1 == "HMTIME" && $2 == 0 { printf "%d %d\n", ($3 + $4) * 1000 + 0.5, $5 }' |
		tail -n 1)
	[ -n "$line" ] || return 1
	echo "$line"
}

# hm_rows FILE: FILE has a line "ROUND MODE CPU-MS PEAK-KB" per run, the
# rounds' first mode the baseline. Prints per mode, in the order first seen:
# "MODE CPU-MEDIAN RATIO Q1 Q3 PEAK-MEDIAN", the ratio and its quartiles
# those of the rounds' CPU ratios to the baseline.
hm_rows() {
	awk '
	function med(a, n,   i, j, t) {	# sorts a[1..n]
		for (i = 2; i <= n; i++)
			for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
		return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
	}
	!($2 in seen) { seen[$2] = 1; order[++nm] = $2 }
	!($1 in base) { base[$1] = $3 }
	{
		k = ++n[$2]
		cpu[$2, k] = $3; rss[$2, k] = $4
		ratio[$2, k] = base[$1] > 0 ? $3 / base[$1] : 0
	}
	END {
		for (m = 1; m <= nm; m++) {
			mode = order[m]; c = n[mode]
			for (i = 1; i <= c; i++) { a[i] = cpu[mode, i]; b[i] = rss[mode, i]; r[i] = ratio[mode, i] }
			mc = med(a, c); mb = med(b, c); mr = med(r, c)
			q = int((c + 3) / 4)	# quartiles as tests/lib/ustack.sh takes them
			printf "%s %.6g %.4f %.4f %.4f %d\n", mode, mc, mr, r[q], r[c + 1 - q], mb
		}
	}' "$1"
}

# hm_noisy RATIO Q1 Q3: is the spread of a row's ratio larger than its
# effect (|RATIO - 1|), or than 0.02, the least effect a goal asks to see?
hm_noisy() {
	awk -v r="$1" -v lo="$2" -v hi="$3" 'BEGIN {
		e = r > 1 ? r - 1 : 1 - r
		exit !(hi - lo > (e > 0.02 ? e : 0.02))
	}'
}

# hm_say_noise NAME RATIO Q1 Q3: the line that reports a row as noise
hm_say_noise() {
	awk -v t="$1" -v r="$2" -v lo="$3" -v hi="$4" 'BEGIN {
		printf "  NOISE: %s: ratio %.3fx, its spread %.3f (q1 %.3f, q3 %.3f)\n", t, r, hi - lo, lo, hi }'
}

# hm_line N1 I1 N2 I2: the line through two counts, I1 at length N1 and I2
# at N2: "FIXED PER-UNIT" (I = FIXED + PER-UNIT x N)
hm_line() {
	awk -v x="$1" -v a="$2" -v y="$3" -v b="$4" 'BEGIN {
		p = (b - a) / (y - x); printf "%.0f %.2f\n", a - p * x, p }'
}

# hm_at LINE BASE-LINE N: the ratio of LINE to BASE-LINE (each "FIXED
# PER-UNIT", from hm_line) at length N, to 3 decimals
hm_at() {
	awk -v m="$1" -v w="$2" -v n="$3" 'BEGIN {
		split(m, a, " "); split(w, b, " ")
		printf "%.3f\n", (a[1] + a[2] * n) / (b[1] + b[2] * n) }'
}
