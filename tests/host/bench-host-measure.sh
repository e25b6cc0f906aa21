#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make bench's host measures (tests/bench/host-measure.sh): instruction
# counts that repeat exactly, a round's ratios to its first mode with their
# median and quartiles, and the noise check of a ratio. Small commands only.
. "$(dirname "$0")/../lib/result.sh"
. "$(dirname "$0")/../bench/host-measure.sh"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# rounds whose modes all ran slow together: the ratios stay, the CPU times move
cat > "$work/rounds" <<EOF
1 without 100 5000
1 with 120 7000
2 without 200 5000
2 with 240 7100
3 without 100 5100
3 with 150 7000
4 without 110 5000
4 with 132 7000
5 without 100 5000
5 with 120 6900
EOF
hm_rows "$work/rounds" > "$work/rows"
check "a row per mode, in the order first seen ($(cut -d' ' -f1 "$work/rows" | tr '\n' ' '))" \
	test "$(cut -d' ' -f1 "$work/rows" | tr '\n' ' ')" = "without with "
check "the baseline's ratios are 1 ($(grep without "$work/rows"))" \
	test "$(grep without "$work/rows")" = "without 100 1.0000 1.0000 1.0000 5000"
# ratios 1.2 1.2 1.5 1.2 1.2: the median 1.2, quartiles (2nd and 4th of 5) 1.2 and 1.2
check "with: the median of the rounds' ratios, not of the times ($(grep '^with ' "$work/rows"))" \
	test "$(grep '^with ' "$work/rows")" = "with 132 1.2000 1.2000 1.2000 7000"

if hm_noisy 1.2 1.2 1.2; then
	fail "ratio 1.2, no spread" "called noise"
else
	pass "ratio 1.2, no spread: a figure"
fi
check "ratio 1.2, spread 0.25: noise" hm_noisy 1.2 1.0 1.25
check "ratio 0.8, spread 0.25: noise (the effect's size)" hm_noisy 0.8 0.7 0.95
if hm_noisy 0.8 0.75 0.85; then
	fail "ratio 0.8, spread 0.1" "called noise"
else
	pass "ratio 0.8, spread 0.1: a figure"
fi
check "ratio 1.0, spread 0.03: noise (more than 0.02, the least effect a goal sees)" \
	hm_noisy 1.0 0.99 1.02
if hm_noisy 1.0 0.995 1.005; then
	fail "ratio 1.0, spread 0.01" "called noise"
else
	pass "ratio 1.0, spread 0.01: a figure (no effect, measured closely)"
fi

# counts at two lengths: 1000 + 5 per unit and 2000 + 6 per unit
check "hm_line: fixed and per unit ($(hm_line 100 1500 300 2500))" \
	test "$(hm_line 100 1500 300 2500)" = "1000 5.00"
check "hm_at: the ratio of two lines at a length ($(hm_at "2000 6" "1000 5" 1000))" \
	test "$(hm_at "2000 6" "1000 5" 1000)" = 1.333
check "hm_say_noise: the row, its ratio and spread" \
	test "$(hm_say_noise "r1, with" 1.2 1.0 1.25)" = \
	"  NOISE: r1, with: ratio 1.200x, its spread 0.250 (q1 1.000, q3 1.250)"

read -r ms kb <<< "$(hm_cpu awk 'BEGIN { for (i = 0; i < 2000000; i++) s += i }')"
check "hm_cpu: CPU ms and peak KB of a run ($ms ms, $kb KB)" \
	test -n "$kb" -a "${ms:-x}" -ge 0 -a "${kb:-0}" -gt 0
if out=$(hm_cpu sh -c 'exit 3'); then
	fail "hm_cpu: a command that fails" "measured: $out"
else
	pass "hm_cpu: a command that fails is not measured"
fi

if ! command -v valgrind > /dev/null; then
	skip "hm_insn" "no valgrind (scripts/deps.sh installs it)"
	finish
fi
a=$(hm_insn awk 'BEGIN { for (i = 0; i < 10000; i++) s += i }')
b=$(hm_insn awk 'BEGIN { for (i = 0; i < 10000; i++) s += i }')
c=$(hm_insn awk 'BEGIN { for (i = 0; i < 100000; i++) s += i }')
check "hm_insn: a count ($a)" test "${a:-0}" -gt 0
check "hm_insn: the same command counts the same ($a, $b)" test "$a" = "$b"
check "hm_insn: a longer loop counts more ($c)" test "${c:-0}" -gt "${a:-0}"
d=$(hm_insn HM_X=42 sh -c 'echo "$HM_X" > "$0"' "$work/env")
check "hm_insn: VAR=VALUE goes to the command's environment ($d, $(cat "$work/env"))" \
	test -n "$d" -a "$(cat "$work/env")" = 42
if out=$(hm_insn sh -c 'exit 3'); then
	fail "hm_insn: a command that fails" "counted: $out"
else
	pass "hm_insn: a command that fails is not counted"
fi
check "hm_insn: no count for a command that is not there" \
	sh -c '! (. "$1"; hm_insn /nonexistent/command)' sh "$(dirname "$0")/../bench/host-measure.sh"
finish
