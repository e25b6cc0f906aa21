#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The ftrace rows under instruction counting against the wall clock:
# each row's user stack cost (its ns over the "none" row), and the
# deferred/in-place ratio of each row, side by side. A ratio the two
# clocks put more than 25% apart is marked: the rows disagree.
#
#   compare.sh ICOUNT.csv WALL.csv
set -u
[ -r "${1:-}" ] && [ -r "${2:-}" ] || { echo "usage: compare.sh ICOUNT.csv WALL.csv" >&2; exit 2; }
awk -F, '
FNR == 1 { f++; next }
# the walk rows are already costs over "none" (their ns column)
{ k = $2 SUBSEP $4; cost[f, k] = ($2 == "walk" ? $6 : $10); if (f == 1) { order[++n] = k } }
END {
	printf "%-6s %-9s %14s %14s\n", "epe", "mode", "icount ns", "wall ns"
	for (i = 1; i <= n; i++) {
		split(order[i], p, SUBSEP)
		if (p[2] == "none")
			continue
		printf "%-6s %-9s %14d %14d\n", p[1], p[2], cost[1, order[i]], cost[2, order[i]]
	}
	print ""
	print "deferred / in-place cost, per clock:"
	for (i = 1; i <= n; i++) {
		split(order[i], p, SUBSEP)
		if (p[2] != "deferred")
			continue
		ki = p[1] SUBSEP "inplace"
		if (!((1, ki) in cost) || cost[1, ki] <= 0 || cost[2, ki] <= 0)
			continue
		a = cost[1, order[i]] / cost[1, ki]
		b = cost[2, order[i]] / cost[2, ki]
		d = a > b ? a / b : b / a
		printf "  %-4s icount %.2fx, wall %.2fx%s\n", p[1], a, b,
			(d > 1.25 ? "  <- the clocks disagree" : "")
	}
}' "$1" "$2"
