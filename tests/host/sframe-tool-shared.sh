#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A table whose 65535 FDEs all point at one run of 65535 FREs (the kernel
# review's N9 input, made by tests/progs/sframe-fres.c) is refused by
# ustack-sframe validate-table at once, as soon as the FRE blocks add up
# to more than the FRE sub-section: before, libusf decoded the run once
# per FDE (4.3e9 rows) and was killed for lack of memory after minutes.
# The same FREs split into one run per FDE make a valid table.
. "$(dirname "$0")/../lib/result.sh"

. "$(dirname "$0")/../lib/sframe-tool.sh"
gen=$USTACK_PROGS/sframe/ustack-sframe-fres
sf_built "$tool"
if [ ! -x "$gen" ]; then
	fail "generator built" "no ${gen#"$USTACK_TOP"/} (make progs)"
	finish
fi
work=$(mktemp -d) || exit 1
trap 'rm -rf "$work"' EXIT

"$gen" table shared 65535 "$work/shared.usft" > /dev/null &&
	"$gen" table disjoint 65535 "$work/disjoint.usft" > /dev/null
check "the two tables made" test -s "$work/shared.usft" -a -s "$work/disjoint.usft"

# at most 1 GiB of memory and 20 s of CPU: the old decoder needed far more
(ulimit -v 1048576 -t 20; "$tool" validate-table "$work/shared.usft") > "$work/out" 2>&1
rc=$?
check "shared FRE run: refused, exit 1 ($rc: $(head -c 300 "$work/out"))" test "$rc" = 1
check "the message says the functions share FRE bytes" grep -q 'functions share FRE bytes' "$work/out"
(ulimit -v 1048576 -t 20; "$tool" validate-table "$work/disjoint.usft") > "$work/out" 2>&1
rc=$?
check "disjoint runs: a valid table, exit 0 ($rc: $(head -c 300 "$work/out"))" test "$rc" = 0
check "all 65535 functions and rows" grep -q 'valid table.*65535 functions, 65535 rows' "$work/out"
finish
