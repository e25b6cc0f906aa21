#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# ustack-sframe against binutils 2.40: the gas --gsframe fixtures of sframe/
# (a PIE program and a shared library, -O2 -fomit-frame-pointer: leaf,
# alloca, aligned stack, signal handler, PLT stubs), and a generated library
# of 400 functions with a program calling each through a PLT of over 256
# bytes (ld's 2-byte FRE starts), dumped by both tools,
# every FDE and FRE compared after normalising; then the command's convert
# (raw and ELF), validate and lookup on the same files.
. "$(dirname "$0")/../lib/result.sh"

O=${USTACK_SFRAME_O:-$USTACK_TOP/build/sframe}
tool=$O/ustack-sframe
fixtures=("$O/utest/fixture-prog" "$O/utest/fixture-lib.so")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

if ! command -v readelf >/dev/null || ! readelf --help 2>&1 | grep -q -- --sframe; then
	skip "sframe readelf" "readelf has no --sframe (binutils before 2.40)"
	finish
fi
for f in "$tool" "${fixtures[@]}"; do
	if [ ! -x "$f" ] && [ ! -f "$f" ]; then
		fail "sframe built" "no ${f#"$USTACK_TOP"/} (make sframe; make -C sframe utest)"
		finish
	fi
done

# The generated pair
gen() {
	local i
	echo '#include <alloca.h>'
	echo '#include <string.h>'
	for ((i = 0; i < 400; i++)); do
		case $((i % 4)) in
		0) echo "int gen$i(int x) { return x * $i + 1; }" ;;
		1) echo "__attribute__((noinline)) int gen$i(int n) { char *p = alloca(n + 1);" \
			"memset(p, n, n + 1); return p[n / 2] + gen$((i - 1))(n); }" ;;
		2) echo "__attribute__((noinline)) int gen$i(int n) {" \
			"char b[64] __attribute__((aligned(64))); memset(b, n, 64);" \
			"__asm__ volatile(\"\" : : \"r\"(b) : \"memory\"); return b[3] + gen$((i - 1))(n); }" ;;
		3) echo "__attribute__((noinline)) int gen$i(int n, int m) { int a[$((i % 40 + 4))];" \
			"for (int j = 0; j < $((i % 40 + 4)); j++) a[j] = n * j + m;" \
			"return a[m % $((i % 40 + 4))] + gen$((i - 1))(n); }" ;;
		esac
	done
}
gen >"$work/gen.c"
{
	for ((i = 0; i < 400; i++)); do echo "int gen$i(int, int);"; done
	echo 'int main(int argc, char **argv) { int s = 0; (void)argv;'
	for ((i = 0; i < 400; i++)); do echo "s += gen$i(argc, s);"; done
	echo 'return s & 1; }'
} >"$work/gen-prog.c"
if gcc -O2 -fomit-frame-pointer -Wa,--gsframe -fPIC -shared -o "$work/libgen.so" "$work/gen.c" &&
   gcc -O2 -fomit-frame-pointer -Wa,--gsframe -fPIE -pie -o "$work/gen-prog" \
	"$work/gen-prog.c" "$work/libgen.so"; then
	fixtures+=("$work/libgen.so" "$work/gen-prog")
else
	fail "gcc -Wa,--gsframe: the generated library and program" "do not build"
fi

# The version, counts, "func idx" lines and rows, blanks squeezed.
norm() {
	awk '/Version:|Num FDEs:|Num FREs:/ { $1 = $1; print; next }
	     /func idx \[/ { sub(/^ +/, ""); print; next }
	     length($1) == 16 && $1 ~ /^[0-9a-f]+$/ { $1 = $1; print }' "$1"
}

for f in "${fixtures[@]}"; do
	n=$(basename "$f")
	readelf --sframe "$f" >"$work/$n.readelf" 2>&1
	"$tool" dump "$f" >"$work/$n.ours" 2>&1
	norm "$work/$n.readelf" >"$work/$n.readelf.n"
	norm "$work/$n.ours" >"$work/$n.ours.n"
	fdes=$(grep -c 'func idx' "$work/$n.readelf.n")
	rows=$(grep -cE '^[0-9a-f]{16} ' "$work/$n.readelf.n")
	if [ "$fdes" -ge 3 ] && cmp -s "$work/$n.readelf.n" "$work/$n.ours.n"; then
		pass "$n: dump agrees with readelf --sframe ($fdes FDEs, $rows FREs)"
	else
		fail "$n: dump agrees with readelf --sframe" \
			"$(diff "$work/$n.readelf.n" "$work/$n.ours.n" | head -n 4 | tr '\n' ' ')"
	fi
	check "$n: validate" "$tool" validate "$f"

	# V1 again: the bytes gas and ld wrote
	objcopy -O binary --only-section=.sframe "$f" "$work/$n.raw"
	vaddr=0x$(readelf -SW "$f" | awk '$2 == ".sframe" { print $4 }')
	"$tool" convert --version 1 "$f" "$work/$n.v1" >/dev/null &&
	check "$n: convert --version 1 gives the same bytes" cmp "$work/$n.raw" "$work/$n.v1"

	# V2 (PCREL), then V3 from that raw file at its address: same rows
	if "$tool" convert --version 2 --pcrel "$f" "$work/$n.v2" >/dev/null &&
	   "$tool" convert --version 3 --vaddr "$vaddr" "$work/$n.v2" "$work/$n.v3" >/dev/null &&
	   "$tool" dump --vaddr "$vaddr" "$work/$n.v3" >"$work/$n.v3.dump"; then
		norm "$work/$n.v3.dump" | grep -v Version >"$work/$n.v3.n"
		grep -v Version "$work/$n.ours.n" >"$work/$n.v1.n"
		check "$n: V1 -> V2 -> V3: same rows" cmp "$work/$n.v1.n" "$work/$n.v3.n"
	else
		fail "$n: V1 -> V2 -> V3" "convert failed"
	fi

	# An ELF copy with the section replaced (V1 fits, V3 is larger)
	if "$tool" convert --version 1 --elf "$work/$n.raw" "$work/x" 2>/dev/null; then
		fail "$n: convert --elf of a raw section" "accepted"
	elif "$tool" convert --version 1 --elf "$f" "$work/$n.elf" >/dev/null &&
	     readelf --sframe "$work/$n.elf" >"$work/$n.elf.readelf" 2>&1; then
		norm "$work/$n.elf.readelf" >"$work/$n.elf.n"
		check "$n: convert --elf: readelf reads the copy" cmp "$work/$n.readelf.n" \
			"$work/$n.elf.n"
	else
		fail "$n: convert --elf" "failed"
	fi
done

# lookup at the entry of a function and in its FP-based body
lib=${fixtures[1]}
addr=$(nm "$lib" | awk '$3 == "fixture_aligned" { print "0x" $1 }')
if [ -n "$addr" ] && out=$("$tool" lookup "$lib" "$addr") &&
   echo "$out" | grep -q 'cfa=sp+8 ra=\*(cfa-8) fp=same'; then
	pass "lookup at fixture_aligned: $out"
else
	fail "lookup at fixture_aligned" "${out:-no symbol}"
fi
if "$tool" lookup "$lib" 0x1 >/dev/null; then
	fail "lookup outside every function" "found something"
else
	pass "lookup outside every function: not found"
fi

# validate refuses a cut section, saying why
head -c 100 "$work/fixture-prog.raw" >"$work/cut"
if out=$("$tool" validate "$work/cut"); then
	fail "validate: a cut section" "accepted"
else
	check "validate: a cut section is invalid ($out)" grep -q 'invalid: .*run' <<<"$out"
fi
finish
