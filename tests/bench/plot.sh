#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Plots of make bench's ftrace rows (gnuplot), next to their CSV:
#   cost-LABEL.png   user stack cost (ns per call over "none") against
#                    events per kernel entry, in-place and deferred
#   bytes-LABEL.png  ring-buffer bytes per call, the same axes
#   report.png       trace-cmd report's CPU seconds against the trace's
#                    records, with and without the plugin (from report.csv)
#
#   plot.sh DIR      (DIR: build/bench, with ftrace-LABEL.csv files)
set -u
dir=${1:?DIR}
command -v gnuplot > /dev/null || { echo "plot: no gnuplot (apt-get install gnuplot-nox)" >&2; exit 1; }

# gp_head PNG TITLE XLABEL YLABEL: the settings every plot starts with
gp_head() {
	printf 'set terminal pngcairo size 800,500 noenhanced\nset output "%s"\n' "$1"
	printf 'set title "%s"\nset xlabel "%s"\nset ylabel "%s"\n' "$2" "$3" "$4"
	printf 'set key top left\nset grid\n'
}
for csv in "$dir"/ftrace-*.csv; do
	# the medians; the rounds' files (ftrace-*-rounds.csv) have no stack columns
	[ -r "$csv" ] && [[ "$csv" != *-rounds.csv ]] || continue
	label=$(basename "$csv" .csv)
	label=${label#ftrace-}
	for mode in inplace deferred; do	# epe 1 4 16: the rows with a number
		awk -F, -v m=$mode '$4 == m && $2 ~ /^[0-9]+$/ { print $2, $10, $9 }' "$csv" > "$dir/.$label-$mode.dat"
	done
	for what in cost bytes; do
		col=2 unit="ns per call (icount: instructions)"
		[ $what = bytes ] && col=3 unit="ring-buffer bytes per call"
		[ "$label" = wall ] && [ $what = cost ] && unit="ns per call (wall clock, TCG)"
		{ gp_head "$dir/$what-$label.png" "user stack $what, $label: ustack-bench, 18 frames" \
			"events per kernel entry" "$unit"; cat; } <<-PLOT | gnuplot || exit 1
			set logscale x 2
			set xtics (1, 4, 16)
			set xrange [0.8:20]
			plot "$dir/.$label-inplace.dat" using 1:$col with linespoints title "in place (8 frames)", \
			     "$dir/.$label-deferred.dat" using 1:$col with linespoints title "deferred (whole stack)"
		PLOT
	done
	rm -f "$dir/.$label-"*.dat
done

# report.csv's CPU-time rows of the traces with stacks (trace rN): records,
# seconds
if [ -r "$dir/report.csv" ]; then
	awk -F, '$1 ~ /^r[0-9]+$/ && $4 == "cpu_ms" {
		print $2, $5 / 1000 > (dir "/.report-" $3 ".dat") }' dir="$dir" "$dir/report.csv"
	if [ -s "$dir/.report-without.dat" ]; then
		{ gp_head "$dir/report.png" "trace-cmd report, output to /dev/null (host)" \
			"records in the trace" "CPU seconds (median)"; cat; } <<-PLOT | gnuplot || exit 1
			set xrange [0:*]
			set yrange [0:*]
			plot "$dir/.report-without.dat" using 1:2 with linespoints title "without the plugin", \
			     "$dir/.report-with.dat" using 1:2 with linespoints title "with the plugin", \
			     "$dir/.report-nosym.dat" using 1:2 with linespoints title "with the plugin, -O ustack_nosym"
		PLOT
	fi
	rm -f "$dir"/.report-*.dat
fi
