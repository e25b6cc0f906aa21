#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# ustack-sframe coverage's exit status: 0 when every file converts, 1 when
# any one FAILED (missing, not ELF), every file still reported.
. "$(dirname "$0")/../lib/result.sh"

. "$(dirname "$0")/../lib/sframe-tool.sh"
good=$O/utest/eh-fixture
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

sf_built "$tool" "$good"
echo 'not ELF' >"$work/text"

# cov NAME WANT-RC FILE...: the exit status, and a report of every file
cov() {
	local name=$1 want=$2 rc n
	shift 2
	"$tool" coverage "$@" >"$work/out" 2>"$work/err"
	rc=$?
	n=$(grep -cE '^[^ ].*(: FAILED: | \()' "$work/out")
	if [ $rc = "$want" ] && [ "$n" = $# ]; then
		pass "coverage $name: exit $rc, $n files reported"
	else
		fail "coverage $name" "exit $rc (want $want), $n of $# files reported: $(head -c 300 "$work/err")"
	fi
}

cov "of a good file" 0 "$good"
cov "of a missing file" 1 "$work/missing"
cov "of a file that is not ELF" 1 "$work/text"
cov "of a good file after a failed one" 1 "$work/missing" "$good"
cov "of a good file before a failed one" 1 "$good" "$work/text"
check "coverage of two files, one FAILED: a count on stderr ($(cat "$work/err"))" \
	grep -qx '1 of 2 files FAILED' "$work/err"
finish
