#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Run a command (make check-stress: make check) with every core kept busy by
# something else: STRESS_LOAD busy loops (default: one per online CPU) at
# normal priority, started first and stopped however the run ends. A test
# whose outcome depends on how fast the host is fails here.
#
#   scripts/check-stress.sh COMMAND...
#
# Prints the command's output, then one line with the load, the time the
# run took and the command's closing line; exits with the command's status.
set -u

[ $# -gt 0 ] || { echo "usage: check-stress.sh COMMAND..." >&2; exit 2; }
n=${STRESS_LOAD:-$(nproc)}
case "$n" in
''|*[!0-9]*) echo "check-stress: STRESS_LOAD=$n is not a number" >&2; exit 2 ;;
esac

loops=()
stop_load() {
	[ ${#loops[@]} -gt 0 ] || return 0
	kill "${loops[@]}" 2>/dev/null
	wait "${loops[@]}" 2>/dev/null
	loops=()
}
trap stop_load EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# Each loop also ends when this script is gone (even killed with SIGKILL):
# it looks every 100,000 rounds.
for _ in $(seq 1 "$n"); do
	bash -c 'while kill -0 '$$' 2>/dev/null; do
		for ((i = 0; i < 100000; i++)); do :; done
	done' &
	loops+=($!)
done
echo "check-stress: $n busy loops (pids ${loops[*]}) for: $*"

start=$(date +%s)
out=$(mktemp)
"$@" 2>&1 | tee "$out"
rc=${PIPESTATUS[0]}
stop_load
secs=$(($(date +%s) - start))
closing=$(grep -E '^[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$' "$out" | tail -n 1)
rm -f "$out"
echo "check-stress: $n busy loops, $((secs / 60)) min $((secs % 60)) s, exit $rc: ${closing:-no closing line}"
exit "$rc"
