#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# gas 2.40 writes no FDE for a DRAP function (sr_drap of ustack-sframe-reg
# deep: a 64-byte aligned local and alloca): the kernel falls back to
# frame pointers for that frame. rbp gives its return address (the frame
# keeps a copy of it next to the saved rbp), but rbp + 16 is not its
# caller's stack pointer: the stack was realigned. The caller (sr_deep)
# has an SP-based SFrame rule, so a walk that goes on from rbp + 16 reads
# its return address from the wrong place. The stack may end after sr_drap's
# caller but must not go on with wrong frames. Found by the kernel (-v 0)
# and registered as is (-v 1). In a file of its own so that it can be
# marked while the kernel goes on after such a fallback.
#   ustack_lib_syscall sr_alloca sr_aligned sr_drap sr_deep x (D + 1) main
# at 4 depths D, so that the realigned frame is at each offset.
# kernels: normal debug
# timeout: 300
. "$(dirname "$0")/../lib/result.sh"
. "$(dirname "$0")/../lib/ustack.sh"
. "$(dirname "$0")/../lib/sframe-reg.sh"

sr_ready

# 4 depths: the realigned frame's 4 possible offsets from 16-byte alignment
for d in 100 101 102 103; do
	deep=$(for i in $(seq 0 $d); do printf ' sr_deep'; done)
	full="ustack_lib_syscall sr_alloca sr_aligned sr_drap$deep main"
	for v in 0 1; do
		sr_run drap$v -v $v deep $d 1
		sr_deep_syms drap$v > /tmp/drap$v.syms
		echo "gas V1 -v $v, D = $d: $(sr_squeeze < /tmp/drap$v.syms) ($(tr '\n' ' ' < /tmp/drap$v.unwind))"
		bad=$(awk -v full="$full" '{
			n = split(full, w, " "); m = split($0, g, " ")
			for (i = 1; i <= m && i <= n; i++)
				if (g[i] != w[i]) { print "frame " i " is " g[i] ", not " w[i]; break }
		}' /tmp/drap$v.syms | tr '\n' ' ')
		check "gas V1 -v $v, D = $d, a DRAP frame without an FDE: the chain or ending early ($bad)" \
			test -z "$bad" -a "$(wc -l < /tmp/drap$v.syms)" = 1
	done
done

trace_clear
finish
