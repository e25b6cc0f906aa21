#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A frame rule whose words lie far apart (review 2026-11-28, N8): the
# registered section of a JIT function says the caller's frame pointer is
# saved KIB KiB below the CFA, on a thread stack that is untouched there
# (ustack-sframe-reg wide, tests/progs/sframe-reg-wide.c). A walk faults
# in the frame pointer's word and the return address's, never the pages
# between them: 60 KiB apart, at most one more page of the stack is
# resident after the traced call; 1 MiB apart, the rule is refused (the
# stack ends at the JIT frame) and nothing is faulted in. Before the fix
# the walk faulted in the whole range between the two words.
# kernels: normal debug
# timeout: 200
. "$(dirname "$0")/../lib/result.sh"
. "$(dirname "$0")/../lib/ustack.sh"
. "$(dirname "$0")/../lib/sframe-reg.sh"

sr_ready

# resident NAME: "BEFORE AFTER" of run NAME
resident() { awk '$1 == "wide" && $3 == "resident" { print $4, $5, $7 }' /tmp/$1.out; }

sr_run wide60 wide 60
read -r before after tid <<< "$(resident wide60)"
check "60 KiB apart: ran ($(tr '\n' ' ' < /tmp/wide60.out | tail -c 200))" \
	sh -c "[ $SR_RC = 0 ] && [ -n '$after' ]"
check "60 KiB apart: at most one page more resident below the frame ($before -> $after)" \
	test "$((after - before))" -le 1
n=$(sr_events wide60 "$tid" | grep -c .)
check "60 KiB apart: the traced call has its stack ($n)" test "$n" -ge 1

sr_run wide1m wide 1024
read -r before after tid <<< "$(resident wide1m)"
check "1 MiB apart: ran" sh -c "[ $SR_RC = 0 ] && [ -n '$after' ]"
check "1 MiB apart: nothing more resident below the frame ($before -> $after)" \
	test "$((after - before))" -le 0
frames=$(sr_events wide1m "$tid" | head -n 1)
echo "1 MiB apart: stack: $frames"
check "1 MiB apart: the stack ends at the JIT frame (one frame: $frames)" \
	test "$(echo $frames | wc -w)" = 1
finish
