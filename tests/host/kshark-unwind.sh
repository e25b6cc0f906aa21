#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# KernelShark's Info (and so the stack window, which shows it) says how the
# kernel found each stack (issue 37): after the frames, "  => [unwind: fp,
# frame pointers may be a guess]" for a stack entry of flags 0x4, "[unwind:
# sframe]" for 0x8, "[unwind: sframe+fp, frame pointers may be a guess]" for
# 0xc; on the committed fixture with those flags (tests/lib/unwind.sh),
# through libkshark without X (kernelshark-plugin/tests/kshark-data-test.c
# --unwind). The committed fixture itself (flags 0) has no such line: host
# test kshark-data checks its Info is exactly the chain.
. "$(dirname "$0")/../lib/result.sh"
. "$(dirname "$0")/../lib/kshark.sh"
. "$(dirname "$0")/../lib/unwind.sh"

kshark_setup "kshark unwind method"
if ! out=$(unwind_fixture "$work" 2>&1); then
	fail "unwind fixture" "$out"
	finish
fi
"$KS_DIR/kshark-data-test" --unwind "$KS_PLUGIN" "$work/unwind.dat" 2>"$work/stderr"
rc=$?
[ $rc = 0 ] || [ $rc = 1 ] || fail "kshark-data-test --unwind" "exited $rc: $(tail -n 3 "$work/stderr")"
finish
