#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# ustack-sframe's output files (convert OUT, convert --elf OUT, convert-eh
# -o OUT): an output that is the input, by its name, a symbolic link or a
# hard link, is refused with both names and the input is left as it was;
# a failed command leaves an existing output as it was; a good one
# replaces it, keeping its mode; no temporary file is left behind; an
# output that is not a regular file (/dev/null) is written to as it is.
. "$(dirname "$0")/../lib/result.sh"

. "$(dirname "$0")/../lib/sframe-tool.sh"
prog=$O/utest/fixture-prog
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

sf_built "$tool" "$prog"
cd "$work" || exit 1
cp "$prog" orig
sum=$(cksum <orig)

# refused NAME RC OUTPUT FILE: RC is 1, OUTPUT names the input and the
# output, and FILE still has the input's bytes
refused() {
	if [ "$2" = 1 ] && grep -q "output $4 is the input" <<<"$3" &&
	   [ "$(cksum <"$4")" = "$sum" ]; then
		pass "$1: refused ($3)"
	else
		fail "$1" "rc $2, $(wc -c <"$4") bytes left: $3"
	fi
}

cp orig in
out=$("$tool" convert --version 1 --elf in in 2>&1)
refused "convert --elf IN IN" $? "$out" in
out=$("$tool" convert --version 1 in in 2>&1)
refused "convert IN IN" $? "$out" in
ln -s in link
out=$("$tool" convert --version 1 --elf in link 2>&1)
refused "convert --elf IN LINK-TO-IN" $? "$out" link
ln in hard
out=$("$tool" convert --version 1 --elf in hard 2>&1)
refused "convert --elf IN HARD-LINK-OF-IN" $? "$out" hard
out=$("$tool" convert-eh in -o hard 2>&1)
refused "convert-eh IN -o HARD-LINK-OF-IN" $? "$out" hard

# a failure (V3 does not fit the V1 section) leaves the old output
echo keep >old
chmod 640 old
"$tool" convert --version 3 --elf in old >/dev/null 2>&1
check "a failed convert --elf leaves the old output" \
	bash -c '[ $0 != 0 ] && [ "$(cat old)" = keep ]' $?
"$tool" convert-eh /proc/self/cmdline -o old >/dev/null 2>&1
check "a failed convert-eh leaves the old output" \
	bash -c '[ $0 != 0 ] && [ "$(cat old)" = keep ]' $?

# a good one replaces it, keeping its mode; a new one gets the umask's
if "$tool" convert --version 1 --elf in old >/dev/null &&
   cmp -s old in && [ "$(stat -c %a old)" = 640 ]; then
	pass "convert --elf replaces an existing output, keeping its mode 640"
else
	fail "convert --elf over an existing output" "$(stat -c '%a %s' old)"
fi
(umask 027; "$tool" convert --version 1 --elf in new >/dev/null)
check "a new --elf output is 0777 less the umask (027: 750)" test "$(stat -c %a new)" = 750
(umask 022; "$tool" convert-eh in -o new.usft >/dev/null)
check "a new convert-eh output is 0666 less the umask (022: 644)" \
	test "$(stat -c %a new.usft)" = 644
"$tool" convert --version 2 link raw >/dev/null
check "convert through a link to the input, to another file" test -s raw -a "$(cksum <in)" = "$sum"

# not a regular file: written as it is, and left one
"$tool" convert --version 2 in /dev/null >/dev/null
check "convert to /dev/null: written, still a character device" \
	bash -c '[ $0 = 0 ] && [ -c /dev/null ]' $?
"$tool" convert --version 1 --elf in /dev/null >null.out 2>&1
rc=$?
check "convert --elf to /dev/null: refused ($(cat null.out))" \
	bash -c '[ $0 = 1 ] && grep -q "regular file" null.out' $rc

left=$(find . -name '.*' ! -name . -printf '%f ')
check "no temporary file left (${left:-none})" test -z "$left"
finish
