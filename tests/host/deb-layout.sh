#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make deb's packages without building them (make check's quick check;
# deb-packages.sh checks the packages themselves): make install
# DESTDIR=... prefix=/usr from the build tree installs exactly what
# debian/*.install put in the packages (each file claimed by one package,
# each line claiming some: dh_missing --fail-missing would pass), the
# library in the multiarch directory with a .pc file naming it, the plugins
# in the directories Debian's libtraceevent1 and KernelShark have compiled
# in, and debian/gen-symbols makes from the version script the symbols the
# library exports (dpkg-gensymbols -c4 would pass).
. "$(dirname "$0")/../lib/result.sh"

top=$USTACK_TOP
ma=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || gcc -print-multiarch)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
root=$work/root

if ! make -s --no-print-directory -C "$top" install DESTDIR="$root" prefix=/usr \
		>"$work/install.log" 2>&1; then
	fail "make install DESTDIR=... prefix=/usr" "$(tail -n 3 "$work/install.log" | tr '\n' ' ')"
	finish
fi
pass "make install DESTDIR=... prefix=/usr"

(cd "$root" && find . \( -type f -o -type l \) | sed 's|^\./||' | sort) >"$work/installed"
# claims: "package path" for every installed path a line of an .install
# file matches (its words are shell patterns, as dh_install reads them)
: >"$work/claims"
unclaiming=
for f in "$top"/debian/*.install; do
	p=$(basename "$f" .install)
	while read -r pat _; do
		[ -n "$pat" ] || continue
		n=0
		while IFS= read -r path; do
			# shellcheck disable=SC2053 # a pattern, or a directory above the path
			if [[ $path == $pat ]] || [[ $path == $pat/* ]]; then
				echo "$p $path" >>"$work/claims"
				n=$((n + 1))
			fi
		done <"$work/installed"
		[ $n -gt 0 ] || unclaiming="$unclaiming $p:$pat"
	done <"$f"
done
check "every line of debian/*.install matches installed files${unclaiming:+ (not:$unclaiming)}" \
	test -z "$unclaiming"
missing=$(cut -d' ' -f2 "$work/claims" | sort | comm -23 "$work/installed" - | head -n 5 | tr '\n' ' ')
check "every installed file is in a package${missing:+ (not: $missing)}" test -z "$missing"
twice=$(cut -d' ' -f2 "$work/claims" | sort | uniq -d | head -n 5 | tr '\n' ' ')
check "no installed file is in two packages${twice:+ ($twice)}" test -z "$twice"

check "the library in /usr/lib/$ma, its .pc file naming that directory" \
	sh -c "[ -f '$root/usr/lib/$ma/libtracefs-ext.so.1' ] &&
	       grep -qx 'libdir=/usr/lib/$ma' '$root/usr/lib/$ma/pkgconfig/libtracefs-ext.pc'"
te_dir=$(strings -a "/usr/lib/$ma/libtraceevent.so.1" | grep -m1 -x '/.*/traceevent/plugins')
check "the trace-cmd plugin where libtraceevent1 looks ($te_dir)" \
	test -n "$te_dir" -a -f "$root$te_dir/plugin_ustack.so"
if [ -e "/usr/lib/$ma/libkshark-gui.so.2" ]; then
	ks_dir=$(strings -a "/usr/lib/$ma/libkshark-gui.so.2" | grep -m1 -x '/.*/kernelshark/plugins')
	check "the KernelShark plugin where KernelShark looks for -p NAME ($ks_dir)" \
		test -n "$ks_dir" -a -f "$root$ks_dir/plugin-ustack.so"
else
	skip "the KernelShark plugin's directory" "libkshark2 is not installed"
fi
for c in ustack-flame ustack-sframe ustack-stitch; do
	check "$c: the command, its man page, no run path" \
		sh -c "[ -x '$root/usr/bin/$c' ] && [ -f '$root/usr/share/man/man1/$c.1' ] &&
		       ! readelf -d '$root/usr/bin/$c' | grep -qE 'RPATH|RUNPATH'"
done
check "a man page for each plugin" \
	test -f "$root/usr/share/man/man7/plugin_ustack.7" -a \
	-f "$root/usr/share/man/man7/kernelshark-plugin-ustack.7"

# the completion offers what ustack-flame has: its formats (as it lists them
# when given another) and its long options (as --help lists them)
comp=$root/usr/share/bash-completion/completions/ustack-flame
flame=$root/usr/bin/ustack-flame
want=$("$flame" -f no-such-format x 2>&1 | sed -n 's/.*no format no-such-format (\(.*\)).*/\1/p' |
	tr -d ',' | tr ' ' '\n' | sort | tr '\n' ' ')
has=$(sed -n "/-f | --format)/,/return/s/.*compgen -W '\([^']*\)'.*/\1/p" "$comp" | tr ' ' '\n' |
	sort | tr '\n' ' ')
check "completion: ustack-flame -f offers its formats ($want)" test -n "$want" -a "$want" = "$has"
want=$("$flame" --help | grep -oE -- '--[a-z][a-z-]*' | sort -u)
missing=$(for o in $want; do grep -qE -- "(^|[[:space:]'])$o([[:space:]')]|\$)" "$comp" || echo "$o"; done | tr '\n' ' ')
check "completion: ustack-flame's long options are all offered${missing:+ (not: $missing)}" \
	test -z "$missing"
sf=$root/usr/bin/ustack-sframe
want=$("$sf" --help 2>&1 | sed -n 's/^  ustack-sframe \([a-z][a-z-]*\).*/\1/p' | sort -u | tr '\n' ' ')
has=$(sed -n "/local cmds=/,/'/p" "$root/usr/share/bash-completion/completions/ustack-sframe" |
	sed "s/.*cmds='//; s/'.*//" | tr -s ' \t' '\n\n' | grep . | sort -u | tr '\n' ' ')
check "completion: ustack-sframe offers its commands ($want)" test -n "$want" -a "$want" = "$has"

"$top/debian/gen-symbols" "$top/libtracefs-ext/libtracefs-ext.map" >"$work/symbols"
sed -n 's/^ \([a-z][^ ]*\) .*/\1/p' "$work/symbols" | sort >"$work/want"
readelf --dyn-syms --wide "$root/usr/lib/$ma/libtracefs-ext.so.1" |
	awk '$7 != "UND" && $8 ~ /@/ { s = $8; sub(/@@/, "@", s); print s }' | sort >"$work/has"
d=$(diff "$work/want" "$work/has" | grep '^[<>]' | head -n 5 | tr '\n' ' ')
check "debian/gen-symbols: the functions the library exports, at their versions ($(wc -l <"$work/want"))${d:+ (<symbols file only, >library only: $d)}" \
	test -z "$d" -a -s "$work/want"
finish
