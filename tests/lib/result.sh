# SPDX-License-Identifier: GPL-2.0
# Result lines every ustack test prints, read by tests/run.sh:
#   PASS: name
#   FAIL: name: reason
#   SKIP: name: reason
# Sourced by host and guest test scripts.

ustack_failed=0

pass() { echo "PASS: $1"; }
fail() { echo "FAIL: $1: ${2:-failed}"; ustack_failed=1; }
skip() { echo "SKIP: $1: $2"; }

# check NAME COMMAND...: PASS when COMMAND succeeds, else FAIL with its output.
check() {
	local name=$1 out
	shift
	if out=$("$@" 2>&1); then
		pass "$name"
	else
		fail "$name" "$(echo "$out" | tail -n 3 | tr '\n' ' ')"
	fi
}

# wait_until SECONDS COMMAND...: run COMMAND every 0.1 s until it succeeds
# (return 0) or SECONDS of wall time have gone by (return 1). For a
# condition that comes after a while: the bound is there to report a hang,
# so make it generous (a guest under TCG on a busy host is several times
# slower than on a quiet one), and fail the test when it is reached.
wait_until() {
	local end=$((SECONDS + $1))

	shift
	until "$@"; do
		[ $SECONDS -lt $end ] || return 1
		sleep 0.1
	done
}

# Exit status of a test script: 1 when anything failed.
finish() { exit $ustack_failed; }

USTACK_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
USTACK_PROGS=$USTACK_TOP/build/progs
