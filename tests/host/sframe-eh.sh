#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The .eh_frame converter on stock Debian 12 files and the table tooling:
#  - usf-eh-check: for every address an FDE covers in libc, ld.so,
#    python3.11, tar, gzip and libperl, libdw's CFA, RA and rbp rules equal
#    the converted table's at the address's file offset (one libdw lookup
#    per CFI row; make -C sframe eh-check-full asks at every address), and
#    its --perturb self-check sees every rule it changes;
#  - ustack-sframe convert-eh, validate-table, dump-table, coverage; blobs
#    cut short or with a changed byte are refused;
#  - load, list and remove against a fake tracefs (USTACK_TRACEFS).
. "$(dirname "$0")/../lib/result.sh"

O=${USTACK_SFRAME_O:-$USTACK_TOP/build/sframe}
tool=$O/ustack-sframe
check_bin=$O/utest/usf-eh-check
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

for f in "$tool" "$check_bin" "$O/utest/eh-fixture"; do
	if [ ! -x "$f" ]; then
		fail "sframe-eh built" "no ${f#"$USTACK_TOP"/} (make sframe; make -C sframe utest)"
		finish
	fi
done

stock=(/lib/x86_64-linux-gnu/libc.so.6 /lib64/ld-linux-x86-64.so.2 /usr/bin/python3.11
       /usr/bin/tar /usr/bin/gzip /usr/lib/x86_64-linux-gnu/libperl.so.5.36)

# ---- the converted tables against libdw ----
for f in "${stock[@]}"; do
	n=$(basename "$f")
	if [ ! -r "$f" ]; then
		skip "eh vs libdw: $n" "$f is not installed"
		continue
	fi
	start=$(date +%s.%N)
	out=$("$check_bin" "$f" 2>&1)
	rc=$?
	secs=$(printf '%.2f' "$(echo "$(date +%s.%N) - $start" | bc)")
	line=$(echo "$out" | grep -F "$f: " | tail -n 1)
	sum=$(echo "$line" | sed -e "s|^$f: ||" -e 's/; [0-9.]*% equal.*//')
	if [ $rc = 0 ] && echo "$line" | grep -q ' 0 differ, 0 missing'; then
		pass "eh vs libdw: $n: $sum (${secs} s)"
	else
		fail "eh vs libdw: $n" "$(echo "$out" | head -n 4 | tr '\n' ' ')"
	fi
done
libc=${stock[0]}
if [ -r "$libc" ]; then
	check "eh vs libdw: the check sees every rule changed in libc (--perturb)" \
		"$check_bin" --perturb --quiet "$libc"
fi

# ---- convert-eh, validate-table, dump-table, coverage ----
fixture=$O/utest/eh-fixture
blob=$work/eh-fixture.usft
if out=$("$tool" convert-eh "$fixture" -o "$blob" 2>&1) &&
   "$tool" validate-table "$blob" >"$work/validate" 2>&1 &&
   grep -q 'valid table, build-id [0-9a-f]\{40\}' "$work/validate" &&
   "$tool" dump-table "$blob" >"$work/dump" 2>&1 &&
   grep -q 'Version: SFRAME_VERSION_3' "$work/dump" && grep -q 'PCREL' "$work/dump" &&
   grep -q 'STARTPC\[m\]' "$work/dump"; then
	pass "convert-eh -> validate-table, dump-table (V3 PCREL, PLT PCMASK): $(cut -d: -f2- <<<"$out")"
else
	fail "convert-eh -> validate-table, dump-table" "$out $(cat "$work/validate" "$work/dump" 2>/dev/null | head -n 5)"
fi
size=$(stat -c %s "$blob" 2>/dev/null || echo 0)
bad=0
for cut in 10 56 $((size - 1)); do
	head -c "$cut" "$blob" >"$work/cut.usft"
	"$tool" validate-table "$work/cut.usft" >/dev/null 2>&1 && bad=1
done
# a byte changed in the magic, the header, the section header, the FDEs
for at in 3 13 58 90; do
	cp "$blob" "$work/flip.usft"
	printf '\x5a' | dd of="$work/flip.usft" bs=1 seek="$at" conv=notrunc status=none
	if "$tool" validate-table "$work/flip.usft" >/dev/null 2>&1; then
		bad=1
		echo "byte $at accepted"
	fi
done
if [ $bad = 0 ] && [ "$size" -gt 56 ]; then
	pass "validate-table refuses 3 cut and 4 changed blobs"
else
	fail "validate-table refuses damaged blobs" "a damaged blob was accepted"
fi
if [ -r "$libc" ]; then
	out=$("$tool" coverage "$libc" 2>&1)
	if grep -q 'FDEs  *[0-9]*: [0-9]* whole' <<<"$out" && grep -q 'representable' <<<"$out" &&
	   grep -q 'signal 1' <<<"$out" && grep -q 'PCMASK 1' <<<"$out"; then
		pass "coverage libc: $(grep -m1 '^  rows' <<<"$out" | sed 's/  */ /g')"
	else
		fail "coverage libc" "$out"
	fi
fi
"$tool" convert-eh /proc/self/cmdline -o "$work/x" >/dev/null 2>&1
check "convert-eh refuses a non-ELF file" test $? = 1

# ---- load, list, remove against a fake tracefs ----
fake=$work/tracefs
mkdir -p "$fake/user_unwind_tables"
: >"$fake/user_unwind_tables/load"
: >"$fake/user_unwind_tables/remove"
printf '%s 1234 2 /usr/lib/x86_64-linux-gnu/libc.so.6\n' "$(printf '%040d' 7)" \
	>"$fake/user_unwind_tables/list"
export USTACK_TRACEFS=$fake
# same_table WRITTEN: WRITTEN is convert-eh's blob with the header's flags
# 1 and fd a descriptor (not 0-2) of the file the table is for
same_table() {
	cmp -s -n 12 "$1" "$blob" && cmp -s -i 16 -n 36 "$1" "$blob" &&
		cmp -s -i 56 "$1" "$blob" &&
		[ "$(od -An -tu4 -j12 -N4 "$1" | tr -d ' ')" = 1 ] &&
		[ "$(od -An -tu4 -j52 -N4 "$1" | tr -d ' ')" -gt 2 ]
}
if out=$("$tool" load "$fixture" 2>&1) && same_table "$fake/user_unwind_tables/load"; then
	pass "load writes convert-eh's blob, naming the file by a descriptor: $out"
else
	fail "load" "$out"
fi
: >"$fake/user_unwind_tables/load"
if out=$("$tool" load --table "$blob" "$fixture" 2>&1) &&
	same_table "$fake/user_unwind_tables/load"; then
	pass "load --table BLOB FILE writes BLOB, naming FILE by a descriptor: $out"
else
	fail "load --table" "$out"
fi
"$tool" load --table "$blob" >/dev/null 2>&1
check "load --table wants exactly one file" test $? = 2
check "list prints the kernel's list" \
	bash -c '"$1" list | grep -qx "$(cat "$2")"' _ "$tool" "$fake/user_unwind_tables/list"
"$tool" remove all && check "remove all writes 'all'" \
	test "$(cat "$fake/user_unwind_tables/remove")" = all
id=$(grep -o '[0-9a-f]\{40\}' "$work/validate" | head -n 1)
"$tool" remove "${id^^}" && check "remove BUILD-ID writes it in lower case" \
	test "$(cat "$fake/user_unwind_tables/remove")" = "$id"
"$tool" remove xyz >/dev/null 2>&1
check "remove refuses a word that is not a build-id" test $? = 1
: >"$fake/user_unwind_tables/remove"
"$tool" remove unused && check "remove unused writes 'unused'" \
	test "$(cat "$fake/user_unwind_tables/remove")" = unused
# every ELF program and library of the system, and what runs: one command
"$tool" load --mapped --system > "$work/system" 2>&1
check "load --mapped --system: $(tail -n 1 "$work/system")" \
	grep -Eq '^([0-9]+) files: ([0-9]{3,}) loaded, 0 already loaded, [0-9]+ without a table, 0 refused$' \
	"$work/system"
check "load --mapped: the files this test maps (bash, libc)" \
	sh -c "grep -q '^$(readlink -f "$BASH"): loaded' '$work/system' &&
	       grep -q '^$(readlink -f /lib/x86_64-linux-gnu/libc.so.6): loaded' '$work/system'"
"$tool" load /etc/passwd >/dev/null 2>&1
check "load of a named file without a table fails" test $? = 1
rm -rf "$fake/user_unwind_tables"
"$tool" load "$fixture" >/dev/null 2>"$work/err"
check "load fails when the kernel has no user_unwind_tables" \
	bash -c '[ $0 = 1 ] && grep -q "No such file" "$1"' $? "$work/err"
unset USTACK_TRACEFS

# ---- installed, with its man page ----
make -s -C "$USTACK_TOP/sframe" O="$O" install DESTDIR="$work/inst" prefix=/usr > /dev/null 2>&1
check "make install: /usr/bin/ustack-sframe and its man page" \
	test -x "$work/inst/usr/bin/ustack-sframe" -a -r "$work/inst/usr/share/man/man1/ustack-sframe.1"
check "the man page documents load --mapped --system, list, remove unused" \
	sh -c "grep -q 'mapped' '$work/inst/usr/share/man/man1/ustack-sframe.1' &&
	       grep -q 'unused' '$work/inst/usr/share/man/man1/ustack-sframe.1'"

finish
