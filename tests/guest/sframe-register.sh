#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# SFrame sections a program registers itself through /dev/sframe
# (ustack-sframe-reg, tests/progs/sframe-reg.c; the ABI in
# tests/progs/sframe-dev.h):
#  - its executable's and library's .sframe (gas V1), read at run time,
#    encoded again as V1, V2, V2+PCREL and V3 for a buffer it maps and
#    registered before any traced call: the exact chain, unwind=sframe,
#    two sections added and both removed by unregistering (the registered
#    ones were used: the kernel found no file's own section on the way);
#  - registering after the kernel found the files' own: EEXIST; the
#    errors of bad sections and ranges;
#  - fork: the child (no exec) has copies of the parent's sections, among
#    them one for a JIT copy of a function in anonymous memory that no
#    file describes and that the parent unregisters before the child runs:
#    only a copy of it gives the child's exact chain through the JIT frame;
#  - JIT: a function copied into anonymous executable memory with its
#    section: exact chain; the section removed (its memory unmapped,
#    unregistered, the text unmapped) and other code at the same address:
#    the stack never uses the removed section;
#  - dlopen/dlclose of two SFrame libraries with the same functions and
#    other frame sizes, in turn at the same address, then the first again
#    at another: exact chains, found by the kernel or registered, nothing
#    stale after dlclose.
# kernels: normal debug
# timeout: 300
. "$(dirname "$0")/../lib/result.sh"
. "$(dirname "$0")/../lib/ustack.sh"
. "$(dirname "$0")/../lib/sframe-reg.sh"

sr_ready

# ---- the program's own sections, in every version ----
for v in 1 2 2p 3; do
	added=$(stat sections_added)
	removed=$(stat sections_removed)
	sr_run reg$v -v $v calls 5
	check "V$v: ran and unregistered both ($(tr '\n' ' ' < /tmp/reg$v.out | tail -c 200))" \
		sh -c "[ $SR_RC = 0 ] && grep -q '^unregistered 2' /tmp/reg$v.out"
	sr_chain "V$v" reg$v $SR_PID 5 "$CHAIN"
	check "V$v: every stack entry says unwind=sframe ($(tr '\n' ' ' < /tmp/reg$v.unwind))" \
		test "$(awk '{print $2}' /tmp/reg$v.unwind)" = "unwind=sframe"
	check "V$v: sections_added grew by 2 ($((added)) -> $(stat sections_added))" \
		test $(($(stat sections_added) - added)) = 2
	check "V$v: sections_removed grew by 2 ($((removed)) -> $(stat sections_removed))" \
		test $(($(stat sections_removed) - removed)) = 2
done

# ---- too late: the files' own sections are there ----
sr_run late late 1
check "registering after the kernel found the executable's section: EEXIST" \
	grep -q '^late executable EEXIST' /tmp/late.out
check "registering after the kernel found the library's section: EEXIST" \
	grep -q '^late .*libustack-sample.so EEXIST' /tmp/late.out
sr_chain "late: the files' own sections" late $SR_PID 1 "$CHAIN"

# ---- a file without .sframe (libc): a registered section takes its place ----
LIBC=$(ldd "$REG" | awk '$1 ~ /^libc.so/ { print $3 }')
if "$USF" convert-eh "$LIBC" -o /tmp/libc.usft > /tmp/convert.out 2>&1; then
	nosec=$(stat files_without_section)
	sr_run libc libc 2 /tmp/libc.usft
	check "libc: the kernel found it without a section first (files_without_section grew)" \
		test "$(stat files_without_section)" -gt "$nosec"
	check "libc: registering its convert-eh V3 section then: ok ($(grep '^libc' /tmp/libc.out))" \
		grep -q '^libc registered: ok' /tmp/libc.out
	sr_events libc $SR_PID > /tmp/libc.frames
	before=$(symbols "$(sed -n 1p /tmp/libc.frames)")
	after=$(symbols "$(sed -n 3p /tmp/libc.frames)")
	echo "libc: before: $before"
	echo "libc: after: $after"
	echo "libc: $(tr '\n' ' ' < /tmp/libc.unwind)"
	check "libc: after, the chain goes on through libc ($after)" \
		sh -c "echo '$after' | grep -q '^$CHAIN __libc_start_call_main __libc_start_main'"
	check "libc: after, every stack of the program is SFrame only" \
		test "$(grep -- "-$SR_PID .*user_unwind_stack:" $T/trace | tail -n 2 | grep -c 'unwind=sframe$\|unwind=sframe ')" = 2
else
	fail "libc: convert-eh" "$(cat /tmp/convert.out)"
fi

# ---- errors ----
sr_run errors errors
while read -r what want; do
	got=$(awk -v w="$what" '$1 == "errors" && $2 == w { print $3 }' /tmp/errors.out)
	check "errors: $what: $want (${got:-nothing})" test "$got" = "$want"
done <<'EOT'
text-not-executable EINVAL
text-unmapped EINVAL
bad-section EINVAL
section-truncated EINVAL
section-unmapped EFAULT
section-wraps EINVAL
register ok
text-not-pages EINVAL
text-empty EINVAL
register-again EEXIST
register-overlapping EEXIST
unregister ok
unregister-again ENOENT
unregister-unknown ENOENT
unregister-with-text EINVAL
EOT

# ---- fork ----
sr_run fork fork 3
child=$(awk '$1 == "child" { print $2 }' /tmp/fork.out)
check "fork: ran, the parent unregistered its JIT section first" \
	sh -c "[ $SR_RC = 0 ] && [ -n '$child' ] && grep -q 'parent unregistered its JIT section: ok' /tmp/fork.out"
awk -F'|' -v p="$child" '$1 == p' /tmp/fork.ev | head -n 3 > /tmp/forkc.ev
sr_chain "fork: the child's calls" forkc "$child" 3 "$CHAIN"
# the child's fourth call goes through the JIT copy
awk -F'|' -v p="$child" '$1 == p' /tmp/fork.ev | tail -n +4 > /tmp/forkj.ev
cp /tmp/fork.out /tmp/forkj.out
sr_expect "fork: the child's call through the JIT copy, exact (a copy of the section)" forkj "$child"

# ---- JIT ----
for v in 3 1; do
	removed=$(stat sections_removed)
	sr_run jit$v -v $v jit
	sr_expect "JIT V$v: exact with the section, never the removed one after" jit$v $SR_PID
	wrong=$(awk '$1 == "jit" && $2 == "text" { print $5 }' /tmp/jit$v.out)
	check "JIT V$v: the stale rule would have named sr_wrong_frame ($wrong): no stack does" \
		sh -c "[ -n '$wrong' ] && ! grep -qF '$wrong' /tmp/jit$v.ev"
	# what the kernel made of the other code (for the log)
	sr_events jit$v $SR_PID | awk 'NR % 2 == 0 { print "JIT V'$v' other code, stack:" $0 }'
	# no section for the other code, called with rbp 0 (sr_call_nofp): a
	# zero frame pointer no frame-pointer chain gave is no outermost frame
	n=$(grep -- "-$SR_PID .*user_unwind_stack:" $T/trace | awk 'NR % 2 == 0' | grep -c ' truncated')
	check "JIT V$v: the 3 stacks of the other code, no rule past its frame, say truncated ($n)" \
		test "$n" = 3
	check "JIT V$v: sections_removed grew by 3 ($removed -> $(stat sections_removed))" \
		test $(($(stat sections_removed) - removed)) = 3
	check "JIT V$v: unregistering after unmapping the text: ENOENT" \
		grep -q 'jit unregister after unmapping the text: ENOENT' /tmp/jit$v.out
done

# ---- dlopen / dlclose ----
DLCHAIN="sr_dl_leaf sr_dl_inner sr_dl_enter sr_dl_mode main"
for v in 0 3; do
	sr_run dl$v -v $v dl 2
	check "dl -v $v: ran ($(grep '^dl' /tmp/dl$v.out | tr '\n' ' '))" test $SR_RC = 0
	sr_chain "dl -v $v: a, b, a" dl$v $SR_PID 6 "$DLCHAIN"
	addrs=$(awk '$1 == "dl" && $3 == "at" { print $4 }' /tmp/dl$v.out | tr '\n' ' ')
	set -- $addrs
	if [ "$1" = "$2" ]; then
		pass "dl -v $v: b loaded where a was"
	else
		skip "dl -v $v: b where a was" "loaded at $addrs"
	fi
	check "dl -v $v: a again at another address ($addrs)" test -n "$3" -a "$3" != "$1"
	if [ $v != 0 ]; then
		check "dl -v $v: dlclose removed each registered section (unregister: ENOENT)" \
			test "$(grep -c 'unregister after dlclose: ENOENT' /tmp/dl$v.out)" = 3
	fi
done

trace_clear
finish
