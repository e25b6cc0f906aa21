#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The README stays the page a newcomer reads first, and its pages hold:
# every relative link of README.md and docs/*.md names a file of the
# repository; README.md has at most 260 lines; every "make TARGET" the
# README shows (in code: `...` or an indented block) is a target of the
# top Makefile (a rule in its database), and the test command it names is
# the one .ci/run runs.
. "$(dirname "$0")/../lib/result.sh"

top=$USTACK_TOP
readme=$top/README.md
pages=("$readme" "$top"/docs/*.md)

# links FILE: the targets of its [text](target) links, one a line; the
# text may span lines. Links to a web page or to an anchor are left out.
links() {
	tr '\n' ' ' < "$1" | grep -oE '\]\([^) ]+\)' | sed 's/^](//; s/)$//' |
		grep -vE '^(https?|mailto|ftp):|^#'
}

for page in "${pages[@]}"; do
	name=${page#$top/}
	n=0 bad=
	while IFS= read -r target; do
		n=$((n + 1))
		path=${target%%#*}
		[ -e "$(dirname "$page")/$path" ] || bad="$bad $target"
	done < <(links "$page")
	check "$name: its $n relative links name files of the repository${bad:+ (missing:$bad)}" \
		test -z "$bad"
done
check "docs/ has the pages the README links to" test -s "$top/docs/bench-results.md"

lines=$(wc -l < "$readme")
check "README.md has at most 260 lines ($lines)" test "$lines" -le 260

# make_commands: the make command lines in the README's code, one a line
# (a `...` span may go over two lines).
make_commands() {
	{
		tr '\n' ' ' < "$readme" | grep -oE '`[^`]*`' | tr -d '`'
		grep -E '^    ' "$readme"
	} | sed 's/#.*//' | grep -oE '(^|[;&|] *|^ *)make( [^;&|]*)?' | sed 's/^[;&| ]*//'
}

# target_of "make [VAR=V|-X] ... TARGET ...": the first word that is no
# option and no assignment (none: the default goal, "all").
target_of() {
	local w t=
	set -- $1
	shift
	for w; do
		case $w in
		-*|*=*) ;;
		*) t=$w; break ;;
		esac
	done
	echo "${t:-all}"
}

targets=$(make_commands | while IFS= read -r cmd; do target_of "$cmd"; done | sort -u)
check "the README shows make commands" test -n "$targets"
# The rule database, read without running a recipe: make -n still runs the
# recipe lines that use $(MAKE), and make check's would run the whole suite.
env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -rpq -C "$top" -f Makefile \
	__readme_links_no_target__ > /tmp/readme-links.db 2>/dev/null
for t in $targets; do
	check "README's \`make $t\` is a target of the top Makefile" \
		grep -q "^$t:" /tmp/readme-links.db
done
rm -f /tmp/readme-links.db

check "the README's test command is make check, and .ci/run runs it" \
	sh -c "grep -qE '^    make check +# ' '$readme' &&
	       grep -qxE 'exec make check' '$top/.ci/run'"
finish
