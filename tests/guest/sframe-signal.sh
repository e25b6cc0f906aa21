#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A signal handler in SFrame code makes the traced call: ustack-sframe-reg
# signal (tests/progs/sframe-reg.c) sends itself SIGUSR1 from sr_sig_raise
# (its own system call, rbp = 0) and the handler calls ustack_lib_syscall.
# The exact chain goes through the signal frame:
#   ustack_lib_syscall sr_sig_handler __restore_rt (glibc's restorer, the
#   handler's return address) sr_sig_raise (the interrupted pc, after its
#   syscall instruction) sr_signal main
# The restorer has no SFrame (libc) and a frame-pointer walk from it finds
# rbp = 0: without signal-frame support in the kernel the stack ends at
# the restorer (or goes wrong), and this test fails. In a file of its own
# so that it can be marked as expected to fail until the kernel has it.
# Sections as the kernel finds them, and registered (V3).
# kernels: normal debug
# timeout: 120
. "$(dirname "$0")/../lib/result.sh"
. "$(dirname "$0")/../lib/ustack.sh"
. "$(dirname "$0")/../lib/sframe-reg.sh"

sr_ready

for v in 0 3; do
	sr_run sig$v -v $v signal
	check "signal -v $v: ran" test $SR_RC = 0
	sr_events sig$v $SR_PID > /tmp/sig$v.frames
	echo "signal -v $v: stack: $(head -n 1 /tmp/sig$v.frames)"
	echo "signal -v $v: symbols: $(symbols "$(head -n 1 /tmp/sig$v.frames)")"
	check "signal -v $v: one call" test "$(wc -l < /tmp/sig$v.frames)" = 1
	# the handler's two frames by name, then the restorer and the interrupted pc exactly
	syms=$(first_n 2 "$(symbols "$(head -n 1 /tmp/sig$v.frames)")")
	check "signal -v $v: the handler's frames: '$syms'" \
		test "$syms" = "ustack_lib_syscall sr_sig_handler"
	sr_expect "signal -v $v: then the restorer and the interrupted pc" sig$v $SR_PID
	syms=$(first_n 6 "$(symbols "$(head -n 1 /tmp/sig$v.frames)")")
	check "signal -v $v: then the interrupted frame's callers: '$syms'" \
		sh -c "echo '$syms' | grep -q ' sr_sig_raise sr_signal main\$'"
done

trace_clear
finish
