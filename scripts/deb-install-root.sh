#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The packages make deb built (build/deb) installed with dpkg into a
# fresh root and removed again: a chroot whose /usr, /etc and /var are
# overlays of the host's (the host is left as it was), in a mount namespace
# of its own (root: see below). Installed, everything runs from PATH: stock
# trace-cmd report prints the fixture's stacks with no setting,
# ustack-flame, ustack-stitch and ustack-sframe run, man finds every page,
# bash completes the two tools, a program builds against
# libtracefs-ext-dev with pkg-config and runs, and stock kernelshark
# -p ustack shows the plugin's trace under Xvfb (a screenshot in
# build/tests/deb-install/); ustack-tools enabled the tables service's
# unit. Then dpkg --purge leaves no file of ours (every path dpkg -L listed
# is gone, the library is out of ld.so's cache, the unit no longer enabled).
# Recording needs the patched kernel: the guest's tests do that. Not built:
# SKIP, FAIL under make check, which builds them first (as deb-packages.sh).
. "$(dirname "$0")/../tests/lib/result.sh"

top=$USTACK_TOP
deb=$top/build/deb
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
files=
for p in $pkgs; do
	f=$(ls "$deb/${p}_"*_amd64.deb 2>/dev/null | head -n 1)
	if [ -z "$f" ]; then
		nodeb "packages installed and removed" "no build/deb/${p}_*.deb (make deb)"
	fi
	files="$files $f"
done
# root, for the mount namespace: in a user namespace an overlay refuses to
# rename the directories dpkg unpacks (EXDEV; Linux 6.18)
if [ "$(id -u)" != 0 ]; then
	skip "packages installed and removed" "needs root (make check runs as root)"
	finish
fi
if ! unshare -m --fork true 2>/dev/null; then
	skip "packages installed and removed" "no mount namespace here (unshare -m)"
	finish
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
shots=$top/build/tests/deb-install
rm -rf "$shots"
mkdir -p "$shots" "$work/pkgs"
cp $files "$work/pkgs/"

# what runs in the chroot: result lines on standard output
cat >"$work/inside.sh" <<'EOS'
#!/bin/bash
. /work/main/tests/lib/result.sh
. /work/main/tests/lib/xwin.sh
top=/work/main
fx=$top/tests/fixtures/plugin
export HOME=/root PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
unset TRACEEVENT_PLUGIN_DIR LD_LIBRARY_PATH
# man-db's trigger would index every page of the host: not what is tested
rm -f /var/lib/man-db/auto-update

unit=ustack-sframe-serve.service
wants=/etc/systemd/system/multi-user.target.wants/$unit
check "before the install, $unit is not enabled here" sh -c "! [ -L $wants ]"
dpkg -i /tmp/pkgs/*.deb >/tmp/dpkg-i.log 2>&1
check "dpkg -i of the five packages" sh -c "grep -v \"^dpkg: warning\" /tmp/dpkg-i.log >&2; dpkg -s ustack-tools | grep -qx \"Status: install ok installed\""
cp /tmp/dpkg-i.log /tmp/shots/
dpkg -L libtracefs-ext1 libtracefs-ext-dev trace-cmd-plugin-ustack kernelshark-plugin-ustack \
	ustack-tools | sort -u >/tmp/listed
# the tables service's unit, enabled by ustack-tools' postinst: no systemd
# runs in the chroot, so deb-systemd-helper made the link systemd reads at boot
check "$unit enabled at install ($wants -> $(readlink $wants))" \
	test "$(readlink $wants)" = /lib/systemd/system/$unit
check "systemctl is-enabled $unit: enabled" sh -c "[ \"\$(systemctl is-enabled $unit)\" = enabled ]"
check "ldconfig knows libtracefs-ext.so.1" sh -c 'ldconfig -p | grep -q "libtracefs-ext.so.1 .*x86_64-linux-gnu"'

for f in "$fx"/*.debug; do
	b=$(basename "$f" .debug)
	mkdir -p "/tmp/debug/.build-id/${b:0:2}"
	cp "$f" "/tmp/debug/.build-id/${b:0:2}/${b:2}.debug"
done
trace-cmd report -O ustack_debug_dir=/tmp/debug -i "$fx/sample.dat" >/tmp/report 2>&1
check "trace-cmd report, from PATH, no setting: symbolized stacks" \
	test "$(grep -c '^ => ustack_lib_syscall+0x[0-9a-f]* (/tmp/ustack-fixture/libustack-sample.so)' /tmp/report)" -ge 4
check "ustack-flame -f html, from PATH" \
	sh -c "ustack-flame -f html -o /tmp/flame.html $top/tests/fixtures/flame/kstack.dat && grep -q '<html' /tmp/flame.html"
check "ustack-stitch, from PATH" \
	sh -c "ustack-stitch -d /tmp/debug $fx/sample.dat | grep -q '^ *=> .*ustack_lib_syscall'"
check "ustack-sframe, from PATH" sh -c 'ustack-sframe coverage /usr/bin/true | grep -q .'
for m in ustack-flame ustack-sframe ustack-stitch plugin_ustack kernelshark-plugin-ustack \
		ustack-stitcher ustack_stitcher_alloc; do
	check "man -w $m: the packaged page" sh -c "man -w $m | grep -q '^/usr/share/man/'"
done
for c in ustack-flame ustack-sframe; do
	check "bash loads $c's completion on demand" bash -c \
		". /usr/share/bash-completion/bash_completion; _completion_loader $c; complete -p $c | grep -q ' $c\$'"
done
cat >/tmp/use.c <<'EOC'
#include <stdio.h>
#include <ustack.h>

int main(void)
{
	struct ustack_symbolizer *sym = ustack_symbolizer_alloc();

	printf("%s\n", sym ? "symbolizer" : "none");
	ustack_symbolizer_free(sym);
	return !sym;
}
EOC
check "a program built against libtracefs-ext-dev with pkg-config runs" sh -c \
	'gcc -o /tmp/use /tmp/use.c $(pkg-config --cflags --libs libtracefs-ext) && /tmp/use | grep -qx symbolizer'
check "... and static" sh -c \
	'gcc -static-libgcc -o /tmp/use-static /tmp/use.c $(pkg-config --cflags libtracefs-ext) \
		/usr/lib/x86_64-linux-gnu/libtracefs-ext.a $(pkg-config --libs --static libtracefs-ext | sed "s/-ltracefs-ext//") &&
	 /tmp/use-static | grep -qx symbolizer'

# KernelShark: the plugin's trace in a window, a screenshot of it
mkdir -p /tmp/kscache
printf '[General]\nnoRootWarn=true\n' >/tmp/kscache/setting.ini
cat >/tmp/ks.sh <<'EOK'
. /work/main/tests/lib/result.sh
. /work/main/tests/lib/xwin.sh
stdbuf -oL kernelshark -p ustack "$1" >/tmp/ks.out 2>&1 &
pid=$!
ok=0
wait_until 120 shown "Kernel Shark" &&
	wait_until 120 grep -q '^draw cpu' "$USTACK_KSHARK_LOG" && ok=1
sleep 1
[ $ok = 1 ] && xwd -root -silent | convert xwd:- png:/tmp/shots/kernelshark.png
kill $pid
wait $pid 2>/dev/null
[ $ok = 1 ]
EOK
USTACK_KSHARK_LOG=/tmp/ks.log USTACK_DEBUG_DIR=/tmp/debug KS_USER_CACHE_DIR=/tmp/kscache \
	xvfb-run -a -s '-screen 0 1280x800x24' bash /tmp/ks.sh "$fx/sample.dat" >/tmp/ks.run 2>&1
check "kernelshark -p ustack, from PATH: the plugin from its directory draws the trace" \
	sh -c 'grep -q "loading plugin \"ustack\" from /usr/lib/x86_64-linux-gnu/kernelshark/plugins/plugin-ustack.so" /tmp/ks.out &&
	       grep -q "^draw cpu" /tmp/ks.log'
check "... a screenshot of it" test -s /tmp/shots/kernelshark.png
cp /tmp/ks.out /tmp/ks.log /tmp/shots/ 2>/dev/null

check "dpkg --purge of the five packages" dpkg --purge ustack-tools kernelshark-plugin-ustack \
	trace-cmd-plugin-ustack libtracefs-ext-dev libtracefs-ext1
left=
while IFS= read -r f; do
	[ -d "$f" ] && [ ! -L "$f" ] && continue	# directories others share
	# merged /usr's links, made with the root (dpkg -L lists /lib since
	# the unit is in /lib/systemd/system)
	case $f in /bin | /lib | /lib64 | /sbin) continue ;; esac
	[ -e "$f" ] || [ -L "$f" ] && left="$left $f"
done </tmp/listed
check "no file the packages installed is left${left:+ (left:$left)}" test -z "$left"
for d in /usr/lib/x86_64-linux-gnu/traceevent/plugins /usr/lib/x86_64-linux-gnu/kernelshark/plugins; do
	check "$d holds nothing of ours" sh -c "! ls $d | grep -q ustack"
done
check "$unit no longer enabled: no link in multi-user.target.wants, no deb-systemd-helper state" \
	sh -c "! [ -e $wants ] && ! [ -L $wants ] &&
	       ! find /var/lib/systemd/deb-systemd-helper-enabled -name '$unit*' 2>/dev/null | grep -q ."
check "ldconfig no longer knows libtracefs-ext" sh -c '! ldconfig -p | grep -q libtracefs-ext'
check "dpkg no longer knows the packages" sh -c \
	'! dpkg-query -W -f="\${Status}\n" libtracefs-ext1 libtracefs-ext-dev trace-cmd-plugin-ustack \
		kernelshark-plugin-ustack ustack-tools 2>/dev/null | grep -q " installed$"'
finish
EOS

# the root: /usr, /etc and /var over the host's, the rest fresh or bound
cat >"$work/ns.sh" <<'EOS'
set -e
w=$1 top=$2
R=$w/root
mkdir -p "$R" "$w/t"
# the upper layers on a tmpfs: on an overlay (a container's /tmp) dpkg's
# renames of new directories fail with EXDEV
mount -t tmpfs tmpfs "$w/t"
for d in usr etc var; do
	mkdir -p "$w/t/upper/$d" "$w/t/wd/$d" "$R/$d"
	mount -t overlay overlay -o "lowerdir=/$d,upperdir=$w/t/upper/$d,workdir=$w/t/wd/$d" "$R/$d"
done
for l in bin lib lib64 sbin; do ln -s "usr/$l" "$R/$l"; done
mkdir -p "$R/proc" "$R/dev" "$R/sys" "$R/tmp" "$R/root" "$R/run" "$R$top" "$R/tmp/pkgs" "$R/tmp/shots"
mount --rbind /dev "$R/dev"
mount --rbind /proc "$R/proc"
mount --rbind /sys "$R/sys"
mount --bind "$top" "$R$top"
mount --bind "$w/pkgs" "$R/tmp/pkgs"
mount --bind "$3" "$R/tmp/shots"
cp "$w/inside.sh" "$R/tmp/inside.sh"
set +e
chroot "$R" bash /tmp/inside.sh
EOS
unshare -m --fork bash "$work/ns.sh" "$work" "$top" "$shots"
rc=$?
[ $rc = 0 ] || [ $rc = 1 ] || fail "the chroot" "exited $rc"
finish
