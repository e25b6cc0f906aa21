#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# ustack-sframe's inputs are regular files of at most 1 GiB: every
# subcommand that reads a file refuses /dev/zero, a directory, a FIFO
# without a writer and a 2 GiB (sparse) file at once (well within 10 s,
# under a 512 MiB address space limit, but for an ASan build), with a
# message naming the file and what is wrong with it; a regular file still
# works.
. "$(dirname "$0")/../lib/result.sh"

. "$(dirname "$0")/../lib/sframe-tool.sh"
prog=$O/utest/fixture-prog
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

sf_built "$tool" "$prog"
mkfifo "$work/fifo"
truncate -s 2G "$work/big"
# load writes to this fake tracefs, never to the host's
mkdir -p "$work/tracefs/user_unwind_tables"
: >"$work/tracefs/user_unwind_tables/load"
export USTACK_TRACEFS=$work/tracefs

# the address space limit, unless the tool cannot start under it (ASan's
# shadow memory)
vlimit=524288
(ulimit -v $vlimit; "$tool" --help) >/dev/null 2>&1 || vlimit=unlimited

# refused FILE WHAT SUBCOMMAND...: exit 1 in time, "FILE: WHAT" on stderr
refused() {
	local file=$1 what=$2 rc
	shift 2
	(ulimit -v $vlimit; timeout 10 "$tool" "$@") >"$work/out" 2>"$work/err"
	rc=$?
	cat "$work/out" >>"$work/err"	# coverage reports on stdout
	if [ $rc = 1 ] && grep -qF "$file: $what" "$work/err"; then
		pass "$* refused: $(grep -F -m 1 "$file: $what" "$work/err")"
	else
		fail "$*" "exit $rc$([ $rc = 124 ] && echo ' (timed out)'): $(head -c 200 "$work/err")"
	fi
}

# Read whole: dump, validate, lookup, convert of a raw section, the table
# commands; read through libelf (which maps the file): the others.
whole=("dump F" "validate F" "lookup F 0x1000" "convert --version 2 F $work/out.raw"
       "dump-table F" "validate-table F")
elf=("convert-eh F -o $work/out.usft" "coverage F" "load F")
for input in "/dev/zero:a character device" "$work:a directory" "$work/fifo:a FIFO" \
	     "$work/big:"; do
	f=${input%%:*}
	what=${input#*:}
	for cmd in "${whole[@]}" "${elf[@]}"; do
		if [ "$f" = "$work/big" ]; then
			what="2147483648 bytes, larger than the limit of 1073741824 bytes"
			[[ " ${elf[*]} " == *" $cmd "* ]] && what="not an ELF file"
		fi
		# shellcheck disable=SC2086 # the words of the subcommand
		refused "$f" "$what" ${cmd/F/$f}
	done
done
check "no output file was made" test ! -e "$work/out.raw" -a ! -e "$work/out.usft"
check "nothing was loaded" test ! -s "$work/tracefs/user_unwind_tables/load"

# a regular file still works
check "dump of a regular ELF file" "$tool" dump "$prog"
"$tool" convert --version 2 "$prog" "$work/raw" >/dev/null
check "dump of a raw section file" "$tool" dump "$work/raw"
finish
