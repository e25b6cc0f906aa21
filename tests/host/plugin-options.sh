#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The trace-cmd plugin's options can be found: "trace-cmd list -O" lists
# every ustack_* option of ustack-options.c with its description (the plugin
# registers them with tep_plugin_add_options()), and the man page
# plugin_ustack(7) documents each of them, no other. list -O reads no
# tracefs: no root needed (strace checks that, when it is there).
. "$(dirname "$0")/../lib/result.sh"
. "$(dirname "$0")/../lib/plugin.sh"

SRC=$USTACK_TOP/trace-cmd-plugin/ustack-options.c
MAN=$USTACK_TOP/trace-cmd-plugin/Documentation/plugin_ustack.7

plugin_require "plugin options listed" trace-cmd
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# the options the source declares, one a line, sorted
sed -n 's/^[[:space:]]*\.name = "\(ustack_[a-z_]*\)",$/\1/p' "$SRC" | sort > "$work/src"
check "the source declares options" test "$(wc -l < "$work/src")" -ge 9

TRACEEVENT_PLUGIN_DIR=$PLUGIN_DIR trace-cmd list -O > "$work/list" 2> "$work/err"
# "option: NAME" then "desc: TEXT", of the plugin "ustack" (the line before)
awk -F'\t' '$1 ~ /plugin:$/ { plugin = $2 }
	    $1 ~ /option:$/ { opt = $2 }
	    $1 ~ /desc:$/ && plugin == "ustack" && $2 != "" { print opt }' "$work/list" |
	sort > "$work/listed"
check "list -O: every ustack_ option of the source, with a description, no other" \
	diff "$work/src" "$work/listed"
check "list -O: nothing on stderr" test ! -s "$work/err"
check "list -O: the options once (one registration)" \
	test "$(grep -c 'option:.*ustack_raw$' "$work/list")" = 1

if command -v strace >/dev/null; then
	TRACEEVENT_PLUGIN_DIR=$PLUGIN_DIR strace -f -qq -e trace=%file -o "$work/strace" \
		trace-cmd list -O > /dev/null 2>&1
	check "list -O: no tracefs file touched" \
		test "$(grep -cE '/sys/kernel/(debug/)?tracing|/proc/mounts' "$work/strace")" = 0
else
	skip "list -O: no tracefs file touched" "no strace"
fi

# the man page: an option is a tagged paragraph, ".B NAME" or ".BI NAME= VALUE"
awk 'prev == ".TP" && $1 ~ /^\.BI?$/ && $2 ~ /^ustack_/ { sub(/=$/, "", $2); print $2 }
     { prev = $1 }' "$MAN" | sort > "$work/man"
check "plugin_ustack.7: every option of the source, no other" diff "$work/src" "$work/man"
if command -v groff >/dev/null; then
	check "plugin_ustack.7: groff has no warning" \
		test -z "$(LC_ALL=C groff -man -ww -z "$MAN" 2>&1)"
else
	skip "plugin_ustack.7: groff has no warning" "no groff"
fi

finish
