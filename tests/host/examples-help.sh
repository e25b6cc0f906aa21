#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Review [22] (the examples): every program of libtracefs-ext/examples
# answers --help with its usage on standard output and exit 0, as a user
# pointed at them by the README tries first; a wrong option still prints the
# usage on standard error and exits 2. No root.
. "$(dirname "$0")/../lib/result.sh"

EX=$USTACK_TOP/build/libtracefs-ext/examples
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

for name in deferred fold lookup stitch symbolize; do
	prog=$EX/$name
	if [ ! -x "$prog" ]; then
		fail "examples: $name built" "${prog#"$USTACK_TOP"/} missing (make libtracefs-ext)"
		continue
	fi
	"$prog" --help >"$work/out" 2>"$work/err"
	rc=$?
	if [ $rc = 0 ] && grep -q "^usage: $name " "$work/out" && [ ! -s "$work/err" ]; then
		pass "examples: $name --help prints its usage"
	else
		fail "examples: $name --help prints its usage" \
		     "exit $rc, stdout: $(head -c 200 "$work/out"), stderr: $(head -c 200 "$work/err")"
	fi
	"$prog" --nosuch >"$work/out" 2>"$work/err"
	rc=$?
	if [ $rc = 2 ] && grep -q "^usage: $name " "$work/err" && [ ! -s "$work/out" ]; then
		pass "examples: $name --nosuch gives the usage and exit 2"
	else
		fail "examples: $name --nosuch gives the usage and exit 2" \
		     "exit $rc, stderr: $(head -c 200 "$work/err")"
	fi
done
finish
