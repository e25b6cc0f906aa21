#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make bench's noise check of a row (tests/lib/ustack.sh, effect_noisy()):
# the row's per-round effects over "none", their median against their
# spread (quartiles(): for 7 rounds the 2nd and 6th value, for up to 3 the
# lowest and highest). Functions only: nothing here touches tracefs.
. "$(dirname "$0")/../lib/result.sh"
. "$(dirname "$0")/../lib/ustack.sh"

check "quartiles of 7: the 2nd and 6th ($(quartiles 9 1 7 3 5 100 2))" \
	test "$(quartiles 9 1 7 3 5 100 2)" = "2 9 "
check "quartiles of 3: the lowest and highest ($(quartiles 5 1 3))" \
	test "$(quartiles 5 1 3)" = "1 5 "

# an effect of about 100 with one outlier round: the outlier is not the spread
work_err=$(mktemp)
trap 'rm -f "$work_err"' EXIT
if effect_noisy row ns 100 104 98 101 5000 99 102 2> "$work_err"; then
	fail "an effect of 100, spread 6, one outlier round" "called noise: $(cat "$work_err")"
else
	pass "an effect of 100, spread 6, one outlier round: a figure"
fi
check "and nothing said" test ! -s "$work_err"

if effect_noisy 16/deferred ns 5000 -3000 12000 4000 9000 -1000 15000 2> "$work_err"; then
	pass "an effect of 5000 whose rounds spread 13000: noise"
else
	fail "an effect of 5000 whose rounds spread 13000" "called a figure"
fi
check "and says which row, with its effect and spread" \
	grep -qx '  NOISE: 16/deferred: per-round effect 5000 ns, its spread 13000 ns' "$work_err"

# a negative effect is judged by its size
if effect_noisy row ns -100 -104 -98 2> "$work_err"; then
	fail "an effect of -100, spread 6" "called noise"
else
	pass "an effect of -100, spread 6: a figure"
fi
# under instruction counting every round is the same: no spread, no noise
if effect_noisy row ns 0 0 0 2> "$work_err"; then
	fail "an effect of 0 in every round" "called noise"
else
	pass "an effect of 0 in every round (spread 0): a figure"
fi
finish
