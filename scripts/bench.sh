#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make bench: the benchmarks, each in one guest boot so rows compare.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
"$top/scripts/guest-run.sh" --timeout 1200 -- bash "$top/tests/bench/ftrace-deferred.sh"
# trace-cmd report with the plugin against without it, timed on the host
# (the traces are recorded in a guest of its own).
"$top/tests/bench/report-plugin.sh"
# perf record --call-graph fp, dwarf and fp,defer, side by side in one guest.
"$top/scripts/guest-run.sh" --timeout 1200 -- bash "$top/tests/bench/perf-deferred.sh"
