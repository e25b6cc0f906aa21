#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The Debian packages make deb built (build/deb, docs/packages.md; checked
# against the version script of the commit their version names, as HEAD
# moves on while other engineers commit): lintian finds no error; each
# package holds exactly its files; libtracefs-ext1's symbols file is the
# version script's, and the library exports exactly those; the tools run
# from the packages unpacked into a scratch root (dpkg -x,
# LD_LIBRARY_PATH); and the plugins are where the stock programs look:
# stock trace-cmd report, without TRACEEVENT_PLUGIN_DIR, prints stacks
# with the packaged plugin in libtraceevent's plugin directory, and stock
# kernelshark -p ustack loads the packaged plugin from its own (each in a
# mount namespace of its own where that directory is a copy with the
# plugin added: nothing is installed on the host). Not built: SKIP, FAIL
# under make check, which builds them first (USTACK_DEB_REQUIRED=1; make
# check-deb: make deb and the deb tests).
. "$(dirname "$0")/../lib/result.sh"

top=$USTACK_TOP
deb=$top/build/deb
ma=x86_64-linux-gnu
pkgs="libtracefs-ext1 libtracefs-ext-dev trace-cmd-plugin-ustack kernelshark-plugin-ustack ustack-tools"

# SKIP, or FAIL where the packages must be there (make check builds them)
nodeb() {
	if [ "${USTACK_DEB_REQUIRED:-0}" = 1 ]; then
		fail "$1" "$2 (build/deb/build.log)"
	else
		skip "$1" "$2"
	fi
	finish
}
for p in $pkgs; do
	f=$(ls "$deb/${p}_"*_amd64.deb 2>/dev/null | head -n 1)
	if [ -z "$f" ]; then
		nodeb "Debian packages" "no build/deb/${p}_*.deb (make deb)"
	fi
	eval "deb_${p//-/_}=\$f"
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# the version script of the commit the packages were built from (the work
# tree may hold another)
built=${f%_amd64.deb}
built=${built##*.}
map=$work/libtracefs-ext.map
if ! git -C "$top" show "$built:libtracefs-ext/libtracefs-ext.map" >"$map" 2>/dev/null; then
	fail "the packages' commit" "no $built in the repository"
	finish
fi

# -- lintian: no error (warnings are listed in build/deb/lintian.log)
changes=$(ls "$deb"/ustack_*.changes | head -n 1)
lintian --fail-on error "$changes" >"$work/lintian" 2>&1
rc=$?
check "lintian: no error ($(grep -c '^W:' "$work/lintian") warnings)" \
	sh -c "[ $rc = 0 ] && ! grep -q '^E:' '$work/lintian'"

# -- contents: every package exactly its files (directories and
# /usr/share/doc left out; the man3 links counted)
contents() {
	dpkg-deb -c "$1" | awk '{ print $6 }' | sed 's|^\./|/|' | grep -v '/$' |
		grep -v '^/usr/share/doc/' | sort
}
# the library's file name has the version of the packages' commit
sover=$(git -C "$top" show "$built:libtracefs-ext/Makefile" |
	sed -n 's/^VERSION[[:space:]]*:= *\$(VERSION_MAJOR)\(\.[0-9.]*\)$/1\1/p')
expect_libtracefs_ext1="/usr/lib/$ma/libtracefs-ext.so.1
/usr/lib/$ma/libtracefs-ext.so.$sover"
expect_libtracefs_ext_dev="/usr/include/tracefs-ext/ustack.h
/usr/lib/$ma/libtracefs-ext.a
/usr/lib/$ma/libtracefs-ext.so
/usr/lib/$ma/pkgconfig/libtracefs-ext.pc"
for m in ustack-control ustack-lookup ustack-sampler ustack-stitcher ustack-symbolizer; do
	expect_libtracefs_ext_dev="$expect_libtracefs_ext_dev
/usr/share/man/man3/$m.3.gz"
done
for n in $(sed -n 's/^[[:space:]]*\(ustack_[a-z0-9_]*\);$/\1/p' "$map"); do
	expect_libtracefs_ext_dev="$expect_libtracefs_ext_dev
/usr/share/man/man3/$n.3.gz"
done
expect_trace_cmd_plugin_ustack="/usr/lib/$ma/traceevent/plugins/plugin_ustack.so
/usr/share/man/man7/plugin_ustack.7.gz"
expect_kernelshark_plugin_ustack="/usr/lib/$ma/kernelshark/plugins/plugin-ustack.so
/usr/share/man/man7/kernelshark-plugin-ustack.7.gz"
expect_ustack_tools="/lib/systemd/system/ustack-sframe-serve.service
/usr/bin/ustack-flame
/usr/bin/ustack-sframe
/usr/bin/ustack-stitch
/usr/share/bash-completion/completions/ustack-flame
/usr/share/bash-completion/completions/ustack-sframe
/usr/share/man/man1/ustack-flame.1.gz
/usr/share/man/man1/ustack-sframe.1.gz
/usr/share/man/man1/ustack-stitch.1.gz"
for p in $pkgs; do
	v=${p//-/_}
	eval "f=\$deb_$v want=\$expect_$v"
	contents "$f" >"$work/has"
	echo "$want" | sort >"$work/want"
	d=$(diff "$work/want" "$work/has" | grep '^[<>]' | head -n 5 | tr '\n' ' ')
	check "$p: exactly its $(wc -l <"$work/want") files${d:+ (<missing >extra: $d)}" test -z "$d"
done
check "libtracefs-ext-dev: the examples' sources in its doc directory" \
	sh -c "dpkg-deb -c '$deb_libtracefs_ext_dev' | grep -c '/usr/share/doc/libtracefs-ext-dev/examples/.*\.c$' | grep -qx 5"
check "every man page of a command and a plugin is packaged (man1: 3, man7: 2)" \
	test "$(for p in $pkgs; do eval "contents \$deb_${p//-/_}"; done |
		grep -cE '/man/man[17]/')" = 5

# -- the symbols file: the version script's names at their nodes' versions
mkdir -p "$work/ctl"
dpkg-deb -e "$deb_libtracefs_ext1" "$work/ctl"
awk '/^[A-Z0-9_.]+ *\{/ { node = $1; ver = node; sub(/^LIBTRACEFS_EXT_/, "", ver)
			   print node "@" node " " ver; next }
     /^[ \t]*(global|local):/ { scope = $1; next }
     scope == "global:" && /^[ \t]*ustack_[a-z0-9_]*;[ \t]*$/ {
	     n = $1; sub(/;$/, "", n); print n "@" node " " ver }' \
	"$map" | sort >"$work/map.syms"
sed -n 's/^ \([^ ]*\) \([^ ]*\)$/\1 \2/p' "$work/ctl/symbols" | sort >"$work/deb.syms"
check "DEBIAN/symbols names every function of the version script at its node's version ($(wc -l <"$work/map.syms") symbols)" \
	cmp -s "$work/map.syms" "$work/deb.syms"
check "DEBIAN/symbols: libtracefs-ext.so.1 of libtracefs-ext1, Build-Depends-Package libtracefs-ext-dev" \
	sh -c "head -n 1 '$work/ctl/symbols' | grep -qx 'libtracefs-ext.so.1 libtracefs-ext1 #MINVER#' &&
	       grep -qx '\* Build-Depends-Package: libtracefs-ext-dev' '$work/ctl/symbols'"
check "DEBIAN/shlibs names libtracefs-ext1" grep -q '^libtracefs-ext 1 libtracefs-ext1 ' "$work/ctl/shlibs"

# -- unpacked into a scratch root
root=$work/root
for p in $pkgs; do eval "dpkg -x \$deb_${p//-/_} '$root'"; done
readelf --dyn-syms --wide "$root/usr/lib/$ma/libtracefs-ext.so.1" |
	awk '$7 != "UND" && $8 ~ /@/ { s = $8; sub(/@@/, "@", s); print s }' | sort >"$work/so.syms"
# (the version nodes are no symbols of .dynsym: dpkg-gensymbols names them)
cut -d' ' -f1 "$work/map.syms" | grep -v '^LIBTRACEFS_EXT_' >"$work/map.names"
check "the packaged library exports exactly the version script's functions, at their nodes" \
	cmp -s "$work/map.names" "$work/so.syms"
check "libtracefs-ext.so.1's soname" \
	sh -c "readelf -d '$root/usr/lib/$ma/libtracefs-ext.so.1' | grep -q 'SONAME.*\[libtracefs-ext.so.1\]'"
check "the .pc file names the multiarch directory" \
	sh -c "grep -qx 'libdir=/usr/lib/$ma' '$root/usr/lib/$ma/pkgconfig/libtracefs-ext.pc' &&
	       grep -qx 'includedir=/usr/include/tracefs-ext' '$root/usr/lib/$ma/pkgconfig/libtracefs-ext.pc'"
check "no packaged ELF file has a run path" \
	sh -c "for f in \$(find '$root' -type f \\( -name '*.so*' -o -path '*/bin/*' \\)); do
		readelf -d \"\$f\" | grep -qE 'RPATH|RUNPATH' && { echo \"\$f\"; exit 1; }; done; exit 0"

export LD_LIBRARY_PATH=$root/usr/lib/$ma
bin=$root/usr/bin
check "ustack-stitch finds the packaged library" \
	sh -c "ldd '$bin/ustack-stitch' | grep -q 'libtracefs-ext.so.1 => $root/usr/lib/$ma/'"
"$bin/ustack-stitch" -n "$top/tests/fixtures/plugin/sample.dat" >"$work/stitch" 2>"$work/stitch.err"
check "ustack-stitch -n prints the fixture's events with their stacks" \
	test "$(grep -c '/tmp/ustack-fixture/libustack-sample.so+0x' "$work/stitch")" -ge 4
"$bin/ustack-flame" -d "$top/tests/fixtures/flame" -f folded "$top/tests/fixtures/flame/kstack.dat" \
	>"$work/folded" 2>"$work/flame.err"
check "ustack-flame makes folded stacks of a fixture" \
	sh -c "[ -s '$work/folded' ] && ! grep -qv ' [0-9][0-9]*$' '$work/folded'"
"$bin/ustack-flame" -f html -o "$work/flame.html" "$top/tests/fixtures/flame/kstack.dat" 2>>"$work/flame.err"
check "ustack-flame -f html writes a page" grep -q '<html' "$work/flame.html"
check "ustack-sframe coverage reads a stock program's .eh_frame" \
	sh -c "'$bin/ustack-sframe' coverage /usr/bin/true | grep -q ."
for c in ustack-flame ustack-sframe ustack-stitch; do
	check "man $c shows its page from the package" \
		sh -c "MANWIDTH=80 man -l '$root/usr/share/man/man1/$c.1.gz' 2>&1 | grep -q '^NAME'"
done
unset LD_LIBRARY_PATH

# -- the tables service's unit: ustack-tools' maintainer scripts (made by
# dh_installsystemd) enable it at install, stop it at removal and forget it
# at purge. What they say, then what they do: run as dpkg runs them, on the
# scratch root (DPKG_ROOT, which deb-systemd-helper honours), with
# systemctl and deb-systemd-invoke replaced by stubs that only log, so that
# a host running systemd is left alone.
unit=ustack-sframe-serve.service
mkdir -p "$work/tools-ctl"
dpkg-deb -e "$deb_ustack_tools" "$work/tools-ctl"
ctl=$work/tools-ctl
check "postinst enables $unit at configure (deb-systemd-helper enable)" \
	grep -qx "[[:space:]]*deb-systemd-helper enable '$unit' >/dev/null || true" "$ctl/postinst"
check "postinst starts it where systemd runs, restarts it on upgrade" \
	sh -c "grep -q '^[[:space:]]*if \[ -d /run/systemd/system \]' '$ctl/postinst' &&
	       grep -qx \"[[:space:]]*deb-systemd-invoke \\\$_dh_action '$unit' >/dev/null || true\" '$ctl/postinst'"
check "prerm stops it at removal" \
	grep -qx "[[:space:]]*deb-systemd-invoke stop '$unit' >/dev/null || true" "$ctl/prerm"
check "postrm forgets it at purge (deb-systemd-helper purge)" \
	grep -qx "[[:space:]]*deb-systemd-helper purge '$unit' >/dev/null || true" "$ctl/postrm"
check "the unit is wanted by multi-user.target (what enabling links it to)" \
	grep -qx 'WantedBy=multi-user.target' "$root/lib/systemd/system/$unit"
if command -v deb-systemd-helper >/dev/null; then
	mkdir -p "$work/stubs"
	real_systemctl=$(command -v systemctl)
	cat >"$work/stubs/systemctl" <<EOF
#!/bin/sh
# systemctl on the scratch root (--root=) only; anything else is logged
for a; do case \$a in --root=$root) exec ${real_systemctl:-false} "\$@" ;; esac; done
echo "systemctl \$*" >>"$work/stubs.log"
EOF
	printf '#!/bin/sh\necho "deb-systemd-invoke $*" >>"%s"\n' "$work/stubs.log" \
		>"$work/stubs/deb-systemd-invoke"
	chmod +x "$work/stubs/systemctl" "$work/stubs/deb-systemd-invoke"
	maint() {	# maint SCRIPT ARGS...: ustack-tools' SCRIPT as dpkg runs it
		local s=$1
		shift
		env PATH="$work/stubs:$PATH" DPKG_ROOT="$root" DPKG_MAINTSCRIPT_PACKAGE=ustack-tools \
			DPKG_MAINTSCRIPT_NAME="$s" sh -e "$ctl/$s" "$@" >>"$work/maint.log" 2>&1
	}
	wants=$root/etc/systemd/system/multi-user.target.wants/$unit
	maint postinst configure
	check "postinst configure: $unit enabled (etc/systemd/system/multi-user.target.wants/$unit -> /lib/systemd/system/$unit)" \
		sh -c "[ \"\$(readlink '$wants')\" = /lib/systemd/system/$unit ] ||
		       { cat '$work/maint.log'; exit 1; }"
	maint prerm remove && maint postrm remove
	check "prerm and postrm remove: the link stays until the purge, as for any enabled unit" \
		test -L "$wants"
	maint postrm purge
	left=$(cd "$root" && find etc var -path '*systemd*' ! -type d 2>/dev/null | tr '\n' ' ')
	check "postrm purge: no link and no deb-systemd-helper state left${left:+ (left: $left)}" \
		test -z "$left"
else
	skip "ustack-tools' maintainer scripts run" "no deb-systemd-helper (init-system-helpers)"
fi

# -- bash completion from the package
if [ -r /usr/share/bash-completion/bash_completion ]; then
	comp() {	# comp COMMAND WORDS...: what completing the last word offers
		bash -c '. /usr/share/bash-completion/bash_completion
			 . "$1"; shift
			 COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1))
			 COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}
			 _comp_cmd=$(complete -p "$1" | sed "s/.*-F \([^ ]*\) .*/\1/")
			 $_comp_cmd "$1" "${!#}" "${@: -2:1}"
			 printf "%s\n" "${COMPREPLY[@]}"' comp \
			"$root/usr/share/bash-completion/completions/$1" "$@"
	}
	out=$(comp ustack-flame --form 2>/dev/null | tr '\n' ' ')
	check "completion: ustack-flame --form<TAB> gives --format ($out)" test "$out" = "--format "
	out=$(comp ustack-flame -f s 2>/dev/null | tr '\n' ' ')
	check "completion: ustack-flame -f s<TAB> gives svg and speedscope ($out)" \
		test "$out" = "speedscope svg " -o "$out" = "svg speedscope "
	out=$(comp ustack-sframe con 2>/dev/null | tr '\n' ' ')
	check "completion: ustack-sframe con<TAB> gives its commands ($out)" \
		test "$out" = "convert convert-eh "
	out=$(comp ustack-sframe load --m 2>/dev/null | tr '\n' ' ')
	check "completion: ustack-sframe load --m<TAB> gives --mapped ($out)" test "$out" = "--mapped "
else
	skip "bash completion" "bash-completion is not installed (make deps)"
fi

# -- where the stock programs look, and that they load the packaged plugins
# from there
te_dir=$(strings -a /usr/lib/$ma/libtraceevent.so.1 | grep -m1 -x '/.*/traceevent/plugins')
check "trace-cmd-plugin-ustack is in libtraceevent1's plugin directory ($te_dir)" \
	test -e "$root$te_dir/plugin_ustack.so"
ks_dir=$(strings -a /usr/lib/$ma/libkshark-gui.so.2 | grep -m1 -x '/.*/kernelshark/plugins')
check "kernelshark-plugin-ustack is in KernelShark's plugin directory ($ks_dir)" \
	test -e "$root$ks_dir/plugin-ustack.so"

if ! unshare -rm true 2>/dev/null; then
	skip "plugins loaded by the stock programs" "no mount namespace here (unshare -rm)"
	finish
fi
# in_ns DIR PLUGIN -- COMMAND...: COMMAND with DIR replaced by a copy of it
# that also holds PLUGIN, in a mount namespace of its own
in_ns() {
	local dir=$1 plugin=$2 copy
	shift 3
	copy=$(mktemp -d "$work/ns.XXXXXX")
	cp -a "$dir"/. "$copy"/
	cp "$plugin" "$copy"/
	unshare -rm sh -c 'mount --bind "$1" "$2" && shift 2 && exec "$@"' ns "$copy" "$dir" "$@"
}
# the fixture's debug files by build-id, as plugin-report.sh does
for f in "$top"/tests/fixtures/plugin/*.debug; do
	b=$(basename "$f" .debug)
	mkdir -p "$work/debug/.build-id/${b:0:2}"
	cp "$f" "$work/debug/.build-id/${b:0:2}/${b:2}.debug"
done
mkdir -p "$work/home"
HOME=$work/home in_ns "$te_dir" "$root$te_dir/plugin_ustack.so" -- \
	env -u TRACEEVENT_PLUGIN_DIR trace-cmd report -O ustack_debug_dir="$work/debug" \
	-i "$top/tests/fixtures/plugin/sample.dat" >"$work/report" 2>"$work/report.err"
check "stock trace-cmd report, no TRACEEVENT_PLUGIN_DIR: the packaged plugin prints symbolized stacks" \
	test "$(grep -c '^ => ustack_lib_syscall+0x[0-9a-f]* (/tmp/ustack-fixture/libustack-sample.so)' "$work/report")" -ge 4
HOME=$work/home env -u TRACEEVENT_PLUGIN_DIR trace-cmd report \
	-i "$top/tests/fixtures/plugin/sample.dat" >"$work/report0" 2>&1
check "without it there (the host as it is), the same report has no stacks" \
	test "$(grep -c '^ => ' "$work/report0")" = 0

if command -v xvfb-run >/dev/null && command -v kernelshark >/dev/null; then
	# a process group of its own, ended once the plugin is loaded (its
	# start under Xvfb on a busy host takes a while: waited for, not timed)
	# (as root, in the namespace too, it asks first, unless told not to)
	mkdir -p "$work/cache"
	printf '[General]\nnoRootWarn=true\n' >"$work/cache/setting.ini"
	export -f in_ns
	KS_USER_CACHE_DIR=$work/cache HOME=$work/home LD_DEBUG=files LD_DEBUG_OUTPUT=$work/ld work=$work setsid bash -c \
		'in_ns "$1" "$2" -- xvfb-run -a timeout 300 kernelshark -p ustack "$3"' ks \
		"$ks_dir" "$root$ks_dir/plugin-ustack.so" "$top/tests/fixtures/plugin/sample.dat" \
		>"$work/ks.out" 2>&1 &
	ks_pid=$!
	loaded() { cat "$work"/ld.* 2>/dev/null | grep -q "file=$ks_dir/plugin-ustack.so .*dynamically loaded"; }
	wait_until 240 sh -c "grep -q 'plugin .* not found\|failed to open plugin' '$work/ks.out' ||
		cat '$work'/ld.* 2>/dev/null | grep -q 'plugin-ustack.so'"
	sleep 1
	ks_ok() { loaded && ! grep -q 'not found\|failed to open' "$work/ks.out"; }
	check "stock kernelshark -p ustack loads the packaged plugin from $ks_dir" ks_ok
	kill -- -"$ks_pid" 2>/dev/null
	wait "$ks_pid" 2>/dev/null
else
	skip "kernelshark -p ustack" "no xvfb-run or kernelshark"
fi
finish
