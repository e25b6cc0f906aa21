#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# ustack-sframe --version prints "ustack-sframe VERSION" on standard output
# and exits 0, the version ustack-flame prints (review 2026-11-28 [22]: no
# --version in either tool; ustack-flame's is tested in flame-cli).
. "$(dirname "$0")/../lib/result.sh"

. "$(dirname "$0")/../lib/sframe-tool.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

sf_built "$tool"
want=$(sed -n 's/^VERSION[[:space:]]*:=[[:space:]]*//p' "$USTACK_TOP/flamegraph/Makefile")
"$tool" --version >"$work/out" 2>"$work/err"
rc=$?
check "--version: exit 0, nothing on stderr ($rc: $(head -c 200 "$work/err"))" \
	test $rc = 0 -a ! -s "$work/err"
check "--version: 'ustack-sframe $want' ($(head -c 100 "$work/out"))" \
	test "$(cat "$work/out")" = "ustack-sframe $want"
check "--help names --version" grep -q -- '--version' <("$tool" --help)
finish
