#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The patched tree's own ftracetest, on the cases in tests/ftracetest.list
# (stock cases green on 6.12 plus our series' cases). Run as
#   tests/guest/ftracetest.sh [CASE...]   to pick cases by hand.
# It takes ~9 min in a guest with both host cores kept busy by something
# else (make check-stress): 15 min left too little room.
# kernels: normal debug
# timeout: 1800
. "$(dirname "$0")/../lib/result.sh"

ftdir=$USTACK_TOP/build/linux/tools/testing/selftests/ftrace
cases=()
if [ $# -gt 0 ]; then
	for c in "$@"; do cases+=("$(realpath "$c")"); done
else
	while read -r c _; do
		case "$c" in ''|'#'*) continue ;; esac
		# shellcheck disable=SC2206
		cases+=($ftdir/test.d/$c)
	done < "$USTACK_TOP/tests/ftracetest.list"
fi

# ftracetest wants a writable directory of its own for logs.
cd /tmp || exit 1
"$ftdir/ftracetest" -l /tmp/ftracetest-logs "${cases[@]}" >/tmp/ftracetest.out 2>&1
rc=$?
# "[N] description<TAB>[RESULT]" lines, colours off since stdout is no tty.
while IFS= read -r line; do
	case "$line" in
	\[[0-9]*\]*) ;;
	*) continue ;;
	esac
	res=$(echo "$line" | sed -n 's/.*\[\([A-Z]*\)\]$/\1/p')
	name=ftracetest$(echo "$line" | sed 's/\t*\[[A-Z]*\]$//' | sed 's/^\[[0-9]*\]//')
	case "$res" in
	PASS|XFAIL) pass "$name" ;;
	UNSUPPORTED|UNTESTED) skip "$name" "$res on this kernel config" ;;
	*)	n=${line#[}
		n=${n%%]*}
		fail "$name" "$res"
		# the case's own log, for the test log file
		log=$(ls /tmp/ftracetest-logs/"$n"-* 2>/dev/null | head -n 1)
		[ -n "$log" ] && tail -n 20 "$log" | sed "s/^/  | /"
		;;
	esac
done < /tmp/ftracetest.out
grep -q '^# of passed' /tmp/ftracetest.out || fail "ftracetest ran" "exit $rc: $(tail -n 5 /tmp/ftracetest.out)"
finish
