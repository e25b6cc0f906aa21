#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Checking a table or a section costs its size, not FDEs x FREs (the
# 2026-11-28 review's N9). The kernel checks every FDE's FREs before it
# uses a table root loads (and, with CONFIG_SFRAME_VALIDATION, a section
# any user registers through /dev/sframe), and FDEs may share one run of
# FREs: ustack-sframe-fres (tests/progs/sframe-fres.c) writes 65535 FDEs
# that all point at the same run of 65535 FREs, 1.3 MB that take 4.3e9
# FRE steps to check. Before the fix such a load was never refused: it
# checked until the KILL of "timeout -s KILL 5" ended it (5.4 s of guest
# time; on the debug kernel the table's loader and a registering task of
# nobody were still checking when the KILL came, too). With the fix the
# FRE runs of all FDEs together must fit in the FRE sub-section, so a
# check reads each FRE about once: FDEs that share a run are refused with
# EINVAL at once, while the same FDEs over disjoint runs, real tables
# (ustack-sframe's, from .eh_frame) and a real section (ld's, whose FRE
# runs are not in FDE order) still load.
# The loaders run under timeout -s KILL 5 of the guest's clock, which
# counts the guest's own instructions here (# icount below), so a busy
# host does not shorten the 5 s.
# kernels: normal debug
# timeout: 300
# icount: shift=0,sleep=off
. "$(dirname "$0")/../lib/result.sh"
. "$(dirname "$0")/../lib/ustack.sh"

TOOL=$USTACK_TOP/build/sframe/ustack-sframe
FRES=$USTACK_PROGS/sframe/ustack-sframe-fres
TABLES=$T/user_unwind_tables
LIBC=$(readlink -f /lib/x86_64-linux-gnu/libc.so.6)
LDSO=$(readlink -f /lib64/ld-linux-x86-64.so.2)
NOBODY="setpriv --reuid=65534 --regid=65534 --clear-groups"
# FDEs of the crafted inputs (the most an FDE's 16-bit FRE count allows)
N=65535

echo "kernel: $(uname -v)"
if [ ! -x "$FRES" ] || [ ! -x "$TOOL" ]; then
	fail "test tools built" "no $FRES or $TOOL (make progs sframe)"
	finish
fi
if [ ! -d $TABLES ]; then
	fail "user_unwind_tables exists" "no $TABLES"
	finish
fi
cd /tmp || exit 1

# build_id FILE
build_id() { readelf -n "$1" | awk '/Build ID/ { print $3 }'; }
# listed ID: table ID is in the list
listed() { grep -q "^$1 " $TABLES/list; }
# now_ms: the guest's clock in milliseconds
now_ms() { echo $(($(date +%s%N) / 1000000)); }

# killable NAME LIMIT CMD...: CMD under "timeout -s KILL LIMIT", in the
# background, waited for until both are gone. timeout sends the KILL to
# its whole process group, itself included: it may be gone before CMD is.
# CMD's output in /tmp/NAME.out, its pid in K_PID, timeout's status in
# K_RC (137: the KILL was sent), the guest time until CMD was gone in
# K_MS. Returns 1 when CMD is still there 60 s of the guest's clock
# later (its state and wait channel in K_STATE).
killable() {
	local name=$1 limit=$2 t0 tpid

	shift 2
	rm -f /tmp/$name.pid
	t0=$(now_ms)
	# the shell's pid is the command's: exec
	timeout -s KILL "$limit" sh -c 'echo $$ > "$0"; exec "$@"' /tmp/$name.pid "$@" \
		> /tmp/$name.out 2>&1 &
	tpid=$!
	wait_until 60 gone $tpid
	K_PID=$(cat /tmp/$name.pid 2>/dev/null)
	[ -z "$K_PID" ] || wait_until 60 gone $K_PID
	K_MS=$(($(now_ms) - t0))
	if ! gone $tpid || { [ -n "$K_PID" ] && ! gone $K_PID; }; then
		K_STATE="$(awk '{ print $3 }' /proc/$K_PID/stat 2>/dev/null)"
		K_STATE="$K_STATE $(cat /proc/$K_PID/wchan 2>/dev/null)"
		return 1
	fi
	wait $tpid
	K_RC=$?
	return 0
}
# gone PID: PID has ended (a zombie not reaped yet counts)
gone() {
	[ ! -e /proc/$1 ] || [ "$(awk '{ print $3 }' /proc/$1/stat 2>/dev/null)" = Z ]
}

# refused_check NAME WHAT CMD...: CMD (a load or a registration) under
# timeout -s KILL 5: it must be gone within a second of the KILL, should
# not have needed it, and must have been refused with EINVAL
refused_check() {
	local name=$1 what=$2

	shift 2
	if ! killable "$name" 5 "$@"; then
		fail "$what: the loader is gone after timeout -s KILL 5" \
			"still there 60 s later, state $K_STATE (unkillable)"
		return
	fi
	echo "$what: gone $K_MS ms of guest time after its start, timeout's status $K_RC;" \
		"it said: $(tr '\n' ' ' < /tmp/$name.out)"
	check "$what: under timeout -s KILL 5 it is gone within 6 s ($K_MS ms)" \
		test $K_MS -le 6000
	check "$what: it ended within 5 s, no KILL needed (timeout's status $K_RC)" \
		test $K_RC != 137 -a $K_RC != 124
	check "$what: refused with EINVAL ($(tail -n 1 /tmp/$name.out))" \
		sh -c "test $K_RC = 1 && grep -q 'Invalid argument' /tmp/$name.out"
}

# ---- tables, root's loads through tracefs ----
tw $TABLES/remove all
"$FRES" table shared $N /tmp/shared.usft
"$FRES" table disjoint $N /tmp/disjoint.usft
SHARED_ID=$(od -An -tx1 -j20 -N20 /tmp/shared.usft | tr -d ' \n')
DISJOINT_ID=$(od -An -tx1 -j20 -N20 /tmp/disjoint.usft | tr -d ' \n')
# the files the tables are loaded for: one each (a table per file)
cp /bin/true /tmp/shared.file
cp /bin/true /tmp/disjoint.file

# How this kernel takes a table: with a descriptor of its file in the
# header (as ustack-sframe loads today), or as stored (before that). A
# real table, made by ustack-sframe, tells; the crafted ones then go the
# same way, so that what refuses them is their FRE runs, not their header.
"$TOOL" convert-eh /bin/true -o /tmp/true.usft > /dev/null
if "$FRES" load /tmp/true.usft /bin/true > /tmp/probe.out 2>&1; then
	shared_file=/tmp/shared.file
	disjoint_file=/tmp/disjoint.file
	echo "tables are loaded with a descriptor of their file"
elif "$FRES" load /tmp/true.usft >> /tmp/probe.out 2>&1; then
	shared_file=
	disjoint_file=
	echo "tables are loaded as stored (no file descriptor)"
else
	fail "a real table (of /bin/true) loads" "in no header form: $(tr '\n' ' ' < /tmp/probe.out)"
	finish
fi
tw $TABLES/remove all

refused_check shared "table of $N FDEs sharing one run of 65535 FREs" \
	"$FRES" load /tmp/shared.usft $shared_file
check "the shared-run table is not in the list" sh -c "! grep -q '^$SHARED_ID ' $TABLES/list"

# the same FDEs over disjoint runs: a valid table, checked in linear time
if killable disjoint 30 "$FRES" load /tmp/disjoint.usft $disjoint_file; then
	check "table of $N FDEs over disjoint runs of 65535 FREs: loaded ($(cat /tmp/disjoint.out))" \
		sh -c "test $K_RC = 0 && grep -q '^$DISJOINT_ID ' $TABLES/list"
else
	fail "table of $N FDEs over disjoint runs: loaded" "loader still there after 60 s ($K_STATE)"
fi
tw $TABLES/remove all

# real tables, as ustack-sframe makes them from .eh_frame, loaded the
# same way
for f in /bin/true "$LIBC" "$LDSO"; do
	t=/tmp/$(basename "$f").usft
	"$TOOL" convert-eh "$f" -o "$t" > /dev/null
	"$FRES" load "$t" ${shared_file:+"$f"} > /tmp/real.out 2>&1
	check "the real table of $f loads ($(cat /tmp/real.out))" listed "$(build_id "$f")"
done
tw $TABLES/remove all

# ---- sections any user registers through /dev/sframe ----
# checked whole only with CONFIG_SFRAME_VALIDATION (the debug kernel);
# otherwise the header alone is checked, and a walk's lookup is bounded
if [ ! -c /dev/sframe ]; then
	skip "sections through /dev/sframe" "no /dev/sframe in this kernel (CONFIG_SFRAME_DEV)"
	finish
fi
if ! grep -q '^CONFIG_SFRAME_VALIDATION=y' "${USTACK_KOBJ:-/nonexistent}/.config" 2>/dev/null; then
	skip "sections through /dev/sframe" \
		"no CONFIG_SFRAME_VALIDATION here: a registered section is not checked whole (the debug kernel's run does)"
	finish
fi

refused_check reg-shared "as nobody, a section of $N FDEs sharing one run of 65535 FREs" \
	$NOBODY "$FRES" register shared $N
if killable reg-disjoint 30 $NOBODY "$FRES" register disjoint $N; then
	check "as nobody, the same FDEs over disjoint runs: registered ($K_MS ms)" \
		sh -c "test $K_RC = 0 && grep -qx 'register ok' /tmp/reg-disjoint.out"
else
	fail "as nobody, the same FDEs over disjoint runs: registered" \
		"registering task still there after 60 s ($K_STATE)"
fi
# the program's .sframe as ld wrote it: its FDEs are sorted by address,
# their FRE runs are not (ld appends the PLT's, and lays out each object's
# in input order)
if killable reg-self 30 $NOBODY "$FRES" register self; then
	check "as nobody, a real section (the program's own, from ld): registered" \
		sh -c "test $K_RC = 0 && grep -qx 'register ok' /tmp/reg-self.out"
else
	fail "as nobody, a real section: registered" "registering task still there after 60 s ($K_STATE)"
fi

finish
