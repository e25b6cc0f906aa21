#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Frames gas must describe well, in SFrame code (ustack-sframe-reg deep,
# tests/progs/sframe-reg.c): D + 1 recursive frames of sr_deep, then
# sr_drap (a 64-byte aligned local and alloca: GCC's DRAP, the CFA kept in
# r10, then loaded from the frame), sr_aligned (realigned with a frame
# pointer), sr_alloca, and the library's ustack_lib_syscall:
#   ustack_lib_syscall sr_alloca sr_aligned sr_drap sr_deep x (D + 1) main
#  - without sr_drap (nodrap), gas's own V1: the exact chain with D = 100;
#    with D = 200 too, every frame in the stack entry and in the trace
#    text (the text of a long stack must not be cut where a trace_seq page
#    is full);
#  - with sr_drap, which gas 2.40 leaves out of .sframe, the executable's
#    section made by our .eh_frame converter (ustack-sframe convert-eh: V3,
#    sr_drap as FLEX rows: CFA = *(rbp - 24), rbp = *(rbp)) registered
#    instead: the exact chain. (gas V1 with sr_drap: sframe-drap-fallback.sh)
#  - the same, sr_drap called through sr_call_fp (deep 0 N fp), a frame
#    with a frame pointer that no table describes: the walk steps over it
#    with the frame-pointer rule alone, none of sr_drap's FLEX rule (CFA
#    and FP read from memory) left in it, and gets sr_deep.
# kernels: normal debug
# timeout: 600
. "$(dirname "$0")/../lib/result.sh"
. "$(dirname "$0")/../lib/ustack.sh"
. "$(dirname "$0")/../lib/sframe-reg.sh"

sr_ready

# sr_deep_chain D [nodrap]: the symbols of the deep chain
sr_deep_chain() {
	local deep

	deep=$(for i in $(seq 0 "$1"); do printf ' sr_deep'; done)
	if [ "${2:-}" = nodrap ]; then
		echo "ustack_lib_syscall sr_alloca sr_aligned$deep main"
	else
		echo "ustack_lib_syscall sr_alloca sr_aligned sr_drap$deep main"
	fi
}

# ---- gas V1, no DRAP frame: exact ----
sr_run nodrap -v 0 deep 100 2 nodrap
sr_show nodrap
sr_chain "gas V1, no DRAP frame, D = 100" nodrap $SR_PID 2 "$(sr_deep_chain 100 nodrap)" |
	sr_squeeze_line
check "gas V1, no DRAP frame: unwind=sframe ($(tr '\n' ' ' < /tmp/nodrap.unwind))" \
	test "$(awk '{print $2}' /tmp/nodrap.unwind)" = "unwind=sframe"

# ---- D = 200: 206 frames, in the entry and in the text ----
sr_run deep200 -v 0 deep 200 1 nodrap
sr_show deep200
want=$(sr_deep_chain 200 nodrap)
got=$(sr_deep_syms deep200 | head -n 1)
n=$(echo "$got" | wc -w)
entry=$(grep -- "-$SR_PID .*user_unwind_stack:" $T/trace | head -n 1 | grep -o 'frames=[0-9]*')
check "gas V1, D = 200: the stack entry has all 206 frames and more ($entry)" \
	test "${entry#frames=}" -ge 206
more=$(grep -A300 -- "-$SR_PID .*user_unwind_stack:" $T/trace | grep -m1 -o '^ => \[[0-9]* more frames\]$' |
	tr -dc 0-9)
check "gas V1, D = 200: the trace text shows $n of ${entry#frames=} frames and says $((${more:-0})) more" \
	test "$((n + ${more:-0}))" = "${entry#frames=}"
check "gas V1, D = 200: the $n frames shown are the chain's first $n" \
	test "$n" -ge 100 -a "$got" = "$(first_n "$n" "$want")"

# ---- the DRAP frame from convert-eh (V3 FLEX), registered: exact ----
corrupt=$(stat sections_corrupt)
badrow=$(stat fallbacks_bad_row)
if "$USF" convert-eh "$REG" -o /tmp/reg.usft > /tmp/convert.out 2>&1; then
	sr_run eh -e /tmp/reg.usft deep 100 2
	sr_show eh
	echo "convert-eh: sections_corrupt +$(($(stat sections_corrupt) - corrupt))" \
		"fallbacks_bad_row +$(($(stat fallbacks_bad_row) - badrow))"
	check "convert-eh V3 registered: ran ($(grep registered /tmp/eh.out | head -n 1))" \
		grep -q 'registered executable V3 (convert-eh)' /tmp/eh.out
	sr_chain "convert-eh V3 registered, through the DRAP frame, D = 100" eh $SR_PID 2 \
		"$(sr_deep_chain 100)" | sr_squeeze_line
	check "convert-eh V3: unwind=sframe ($(tr '\n' ' ' < /tmp/eh.unwind))" \
		test "$(awk '{print $2}' /tmp/eh.unwind)" = "unwind=sframe"
	check "convert-eh V3: no section dropped as corrupt" \
		test "$(stat sections_corrupt)" = "$corrupt"

	sr_run drapfp -e /tmp/reg.usft deep 0 2 fp
	sr_show drapfp
	sr_chain "convert-eh V3, the DRAP frame's caller described by no table: frame pointers" \
		drapfp $SR_PID 2 "ustack_lib_syscall sr_alloca sr_aligned sr_drap sr_call_fp sr_deep"
else
	fail "convert-eh" "$(cat /tmp/convert.out)"
fi

trace_clear
finish
