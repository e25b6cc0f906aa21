#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Every patch of the series passes the tree's checkpatch.pl (no errors, no
# warnings) and applies on its own predecessors (kernel-tree.sh checks that).
. "$(dirname "$0")/../lib/result.sh"

tree=$USTACK_TOP/build/linux
# spdxcheck.py wants Debian's python3 (python3-ply), not another one on PATH.
export PATH=/usr/bin:$PATH
# FILE_PATH_CHANGES ("does MAINTAINERS need updating?") fires for every new
# file. The series adds no MAINTAINERS entry on purpose: an entry names
# maintainers, and nobody is named without having agreed to it. The new
# files under kernel/trace/, tools/perf/ and selftests/ftrace/ are covered
# by existing entries; kernel/unwind/ gets one when the series is posted.
ignore=FILE_PATH_CHANGES
# One patch, by subject, may ignore more, each with its reason:
# "tracing: Make the trace option flags 64 bits wide" changes the C() list
# macro of kernel/trace/trace.h (TRACE_ITER_##a = BIT_ULL(...)), an
# enumerator initializer that checkpatch takes for a complex macro value
# with an unused argument; the line keeps the shape trace.h has always had.
extra_ignore() {
	case "$(sed -n 's/^Subject: \[PATCH[^]]*\] //p' "$1")" in
	"tracing: Make the trace option flags 64 bits wide")
		echo ",COMPLEX_MACRO,MACRO_ARG_UNUSED" ;;
	esac
}
n=0
for p in "$USTACK_TOP"/kernel/patches/*.patch; do
	[ -e "$p" ] || continue
	n=$((n + 1))
	name="checkpatch $(basename "$p")"
	out=$(cd "$tree" && scripts/checkpatch.pl -q --show-types \
		--ignore "$ignore$(extra_ignore "$p")" "$p" 2>&1)
	if echo "$out" | grep -qE '^(ERROR|WARNING):'; then
		fail "$name" "$(echo "$out" | grep -E '^(ERROR|WARNING):' | head -n 3 | tr '\n' ' ')"
	else
		pass "$name"
	fi
done
[ $n -gt 0 ] || skip "checkpatch" "the series is empty"
finish
