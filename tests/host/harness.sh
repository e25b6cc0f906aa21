#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The guest harness tests itself: a failing job, a kernel WARNING and a hung
# guest must each fail a run; a clean job must pass with its output intact.
. "$(dirname "$0")/../lib/result.sh"

run() { "$USTACK_TOP/scripts/guest-run.sh" "$@"; }

out=$(run --timeout 120 -- 'echo hello from $(uname -r)' 2>&1)
rc=$?
if [ $rc = 0 ] && echo "$out" | grep -q 'hello from .*-ustack'; then
	pass "clean job passes with its output"
else
	fail "clean job passes with its output" "exit $rc: $out"
fi

run --timeout 120 -- 'exit 1' >/dev/null 2>&1
rc=$?
[ $rc = 1 ] && pass "job exiting 1 fails the run" || fail "job exiting 1 fails the run" "exit $rc"

# A real WARNING from lkdtm; the job itself succeeds.
lkdtm=/sys/kernel/debug/provoke-crash/DIRECT
out=$(run --timeout 120 -- "echo WARNING > $lkdtm; echo job-ok" 2>&1)
rc=$?
if [ $rc = 125 ] && echo "$out" | grep -q 'job-ok' && echo "$out" | grep -q 'WARNING:'; then
	pass "kernel WARNING fails a passing job"
else
	fail "kernel WARNING fails a passing job" "exit $rc: $(echo "$out" | tail -n 5)"
fi

out=$(run --timeout 25 -- 'sleep 1000' 2>&1)
rc=$?
if [ $rc = 124 ] && echo "$out" | grep -q 'guest hung'; then
	pass "hung guest is killed and fails"
else
	fail "hung guest is killed and fails" "exit $rc: $(echo "$out" | tail -n 3)"
fi
finish
