#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A fault that passes must not drop a section (the 2026-11-28 review's
# N12). ustack-sframe-reg transient registers its executable's and its
# library's sections, then makes their buffers unreadable while they stay
# mapped (userfaultfd in SIGBUS mode: every read fails with EFAULT, as a
# fault that runs out of memory does) and makes 5 calls: their walks
# cannot read the sections and fall back to frame pointers for those
# frames (the code keeps none: the stacks are guesses, and say so:
# unwind=fp). Then the buffers come back and 5 more calls are made: they
# must be walked by the sections again, the exact chain, SFrame only. A
# kernel that took the fault for corruption dropped both sections for the
# rest of the process (sections_corrupt grew, and the last calls were
# frame-pointer guesses).
#
# And a section found corrupt is dropped only while it is still the one
# registered for its text (N12's "sframe_drop() does not recheck"):
# ustack-sframe-reg droprace holds a walk in a fault on section A's
# buffer (userfaultfd), replaces A by B for the same text meanwhile, then
# gives A's buffer back corrupt. The walk drops A (sections_corrupt grows
# by one), and B must stay: the 3 calls after are B's exact chain. A
# kernel that dropped whatever was registered at the address dropped B.
# kernels: normal debug
# timeout: 200
. "$(dirname "$0")/../lib/result.sh"
. "$(dirname "$0")/../lib/ustack.sh"
. "$(dirname "$0")/../lib/sframe-reg.sh"

sr_ready

corrupt=$(stat sections_corrupt)
sr_run transient transient 5
check "ran: held and released both sections ($(tr '\n' ' ' < /tmp/transient.out | tail -c 200))" \
	sh -c "[ $SR_RC = 0 ] && grep -q '^held 2' /tmp/transient.out &&
	       grep -q '^released 2' /tmp/transient.out && grep -q '^unregistered 2' /tmp/transient.out"
check "no section taken for corrupt ($corrupt -> $(stat sections_corrupt))" \
	test "$(stat sections_corrupt)" = "$corrupt"
sr_events transient $SR_PID > /tmp/transient.frames
n=$(wc -l < /tmp/transient.frames)
check "10 getppid events ($n)" test "$n" = 10
# the 5 calls while the sections could not be read: frame pointers
# through code that keeps none, so each stack says unwind=fp (a guess; a
# zero word read as the saved frame pointer ends it like an outermost
# frame), never unwind=sframe alone
grep -- "-$SR_PID .*user_unwind_stack:" $T/trace > /tmp/transient.stacks
guess=0
for i in 1 2 3 4 5; do
	syms=$(symbols "$(sed -n "${i}p" /tmp/transient.frames)")
	line=$(sed -n "${i}p" /tmp/transient.stacks)
	echo "held $i: $syms | ${line##*user_unwind_stack: }"
	case $line in
	*unwind=fp*|*unwind=sframe+fp*) guess=$((guess + 1)) ;;
	esac
done
check "while held: the 5 stacks say frame pointers found frames ($guess)" test "$guess" = 5
# the 5 calls after: the sections again
sed -n '6,10p' /tmp/transient.frames > /tmp/transient.after
read -r n exact none <<< "$(CHAIN=$CHAIN chain_count < /tmp/transient.after)"
echo "after: $(symbols "$(sed -n 1p /tmp/transient.after)")"
check "released: the 5 later calls are the exact chain again ($exact of $n, $none without)" \
	test "$n" = 5 -a "$exact" = 5
sfr=$(sed -n '6,10p' /tmp/transient.stacks | grep -c 'unwind=sframe$\|unwind=sframe ')
check "released: the 5 later stacks are SFrame only ($sfr)" test "$sfr" = 5

# ---- the drop of a corrupt section that was replaced meanwhile ----
corrupt=$(stat sections_corrupt)
sr_run droprace droprace
grep '^droprace' /tmp/droprace.out
check "droprace: every step done (exit $SR_RC)" \
	sh -c "[ $SR_RC = 0 ] && grep -q 'walk waits on section A' /tmp/droprace.out &&
	       grep -q 'A unregistered: ok' /tmp/droprace.out &&
	       grep -q 'B registered' /tmp/droprace.out &&
	       grep -q 'B unregistered at the end: ok' /tmp/droprace.out"
check "droprace: the held walk found A corrupt ($corrupt -> $(stat sections_corrupt))" \
	test "$(stat sections_corrupt)" = $((corrupt + 1))
sr_expect "droprace: B's 3 calls after, walked by B" droprace $SR_PID
finish
