#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# ustack-sframe-reg on the host, with -d (dry run: nothing registered, no
# /dev/sframe): it finds its executable's and library's .sframe, encodes
# them in every version for buffers near their code, takes the
# executable's from a convert-eh blob, copies its JIT templates with their
# sections, and writes the expect lines the guest tests check against
# (sframe-register.sh, sframe-fuzz.sh).
. "$(dirname "$0")/../lib/result.sh"

REG=$USTACK_PROGS/sframe/ustack-sframe-reg
USF=$USTACK_TOP/build/sframe/ustack-sframe
if [ ! -x "$REG" ]; then
	fail "sframe-reg" "no $REG (make progs)"
	finish
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

for v in 1 2 2p 3; do
	"$REG" -d -v $v calls 1 > "$tmp/out" 2>&1
	check "V$v: the executable's and the library's sections encoded near their code" \
		test "$(grep -c "^registered .* V$v 0x" "$tmp/out")" = 2
done

if "$USF" convert-eh "$REG" -o "$tmp/blob" > /dev/null 2>&1; then
	check "the executable's section from a convert-eh blob" \
		sh -c "'$REG' -d -e '$tmp/blob' deep 3 1 | grep -q '^registered executable V3 (convert-eh)'"
else
	fail "convert-eh" "$USF convert-eh $REG failed"
fi

"$REG" -d jit > "$tmp/jit" 2>&1
check "jit: 6 expect lines, 3 exact, 3 prefix" \
	test "$(grep -c '^expect jit-.* exact 0x' "$tmp/jit")" = 3 -a \
	     "$(grep -c '^expect jit-.* prefix 0x' "$tmp/jit")" = 3

"$REG" -d fuzz 500 7 > "$tmp/fuzz" 2>&1
check "fuzz: 500 rounds, one expect line each, every class" \
	test "$(grep -c '^expect fuzz-[0-9]* prefix=[1-6] 0x' "$tmp/fuzz")" = 500 -a \
	     "$(awk '$1 == "fuzz" && $2 ~ /^[0-9]+$/ { print $4 }' "$tmp/fuzz" | sort -u | wc -l)" = 9
"$REG" -d fuzz 500 7 > "$tmp/fuzz2" 2>&1
grep '^fuzz [0-9]' "$tmp/fuzz" > "$tmp/r1"
grep '^fuzz [0-9]' "$tmp/fuzz2" > "$tmp/r2"
check "fuzz: the same seed, the same rounds" cmp -s "$tmp/r1" "$tmp/r2"
check "usage: exit 2 on a bad mode" sh -c "'$REG' nosuchmode 2>/dev/null; [ \$? = 2 ]"
finish
