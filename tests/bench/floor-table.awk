#!/usr/bin/awk -f
# SPDX-License-Identifier: GPL-2.0
# make bench, part "floor": the series' profile and the floor's side by
# side, by group, from two reports of tests/bench/profile-report.py.
#
#   awk -f floor-table.awk SERIES_REPORT FLOOR_REPORT
#
# Exit status 1 when a report has no in-place or no deferred total.

# a new report: no mode yet
FNR == 1 { mode = "" }
# "inplace: 893 instructions per call" starts a mode's groups
/^(inplace|deferred): -?[0-9]+ instructions per call$/ {
	mode = substr($1, 1, length($1) - 1)
	total[FILENAME == ARGV[1], mode] = $2
	next
}
# "  ring buffer    473": a group (its functions are indented further)
/^  [a-z]/ && $NF ~ /^-?[0-9]+$/ && mode != "" {
	name = substr($0, 3)
	sub(/ +-?[0-9]+$/, "", name)
	if (!(name in seen)) {
		seen[name] = 1
		order[n++] = name
	}
	cost[FILENAME == ARGV[1], mode, name] = $NF
	next
}
function cell(series, mode, name) {
	return ((series, mode, name) in cost) ? cost[series, mode, name] : ""
}

function row(name,	line) {
	line = sprintf("%-22s %9s %9s %9s", name, cell(1, "inplace", name),
		       cell(1, "deferred", name), cell(0, "deferred", name))
	sub(/ +$/, "", line)
	print line
}

END {
	for (s = 0; s <= 1; s++)
		for (m = 0; m < 2; m++)
			if (!((s, m ? "deferred" : "inplace") in total)) {
				print "floor: no " (m ? "deferred" : "in-place") " total in " ARGV[2 - s]
				exit 1
			}
	print "eq8 (8 frames, 1 event per kernel entry), instructions per call that"
	print "user stacks add; the floor is tests/bench/floor.patch on the series:"
	printf "%-22s %9s %9s %9s\n", "group", "in-place", "deferred", "floor"
	for (i = 0; i < n; i++)
		if (order[i] != "other")
			row(order[i])
	if ("other" in seen)
		row("other")
	printf "%-22s %9s %9s %9s\n", "total", total[1, "inplace"], total[1, "deferred"],
	       total[0, "deferred"]
	printf "deferred/in-place: the series %.2fx, the floor %.2fx (in-place %s in its run);\n",
	       total[1, "deferred"] / total[1, "inplace"],
	       total[0, "deferred"] / total[0, "inplace"], total[0, "inplace"]
	printf "the goal, at most 1.1x, is %.0f instructions\n", 1.1 * total[1, "inplace"]
}
