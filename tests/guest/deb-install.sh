#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Issue 40's install test, on the patched kernel: the packages make deb
# built (build/deb; make check builds them before its tests) installed
# with dpkg into a fresh root, a chroot whose /usr, /etc and /var are
# fuse-overlayfs overlays of the guest's (the host's / read-only; the guest
# kernel has no overlayfs, and FUSE it has), upper layers on its tmpfs.
# There, from PATH, the README's commands as written: trace-cmd record -O
# user_stacktrace_deferred -e raw_syscalls -F ./prog (ustack-sample), stock
# trace-cmd report with each getppid's symbolized chain and no setting,
# ustack-flame -f html, ustack-stitch, and stock kernelshark -p ustack on
# the trace under Xvfb, the plugin loaded from KernelShark's directory and
# drawing it, and a screenshot of it; ustack-tools enabled the tables
# service's unit; then dpkg --purge
# leaves no file of ours and the unit no longer enabled. Then the kernel's
# package (make deb-kernel, which make check runs): its /boot/vmlinuz is the
# kernel built for it, and dpkg --purge leaves none of its files.
# timeout: 1200
. "$(dirname "$0")/../lib/result.sh"
. "$(dirname "$0")/../lib/ustack.sh"

top=$USTACK_TOP
deb=$top/build/deb
pkgs="libtracefs-ext1 libtracefs-ext-dev trace-cmd-plugin-ustack kernelshark-plugin-ustack ustack-tools"
files=
for p in $pkgs; do
	f=$(ls "$deb/${p}_"*_amd64.deb 2>/dev/null | head -n 1)
	if [ -z "$f" ]; then
		fail "the packages" "no build/deb/${p}_*_amd64.deb (make deb)"
		finish
	fi
	files="$files $f"
done
v=${f##*+}
pass "the packages of ${v%_amd64.deb}"
kdeb=$(ls "$deb"/kernel/linux-image-*_amd64.deb 2>/dev/null | head -n 1)
if [ -z "$kdeb" ]; then
	fail "the kernel's package" "no build/deb/kernel/linux-image-*_amd64.deb (make deb-kernel)"
	finish
fi
if ! command -v fuse-overlayfs >/dev/null; then
	fail "fuse-overlayfs" "not installed (make deps installs it)"
	finish
fi
if [ ! -c /dev/fuse ]; then
	fail "/dev/fuse" "the guest kernel has no FUSE"
	finish
fi

R=/tmp/root
mkdir -p "$R" /tmp/ov
bad=
for d in usr etc var; do
	mkdir -p "/tmp/ov/upper/$d" "/tmp/ov/work/$d" "$R/$d"
	fuse-overlayfs -o "lowerdir=/$d,upperdir=/tmp/ov/upper/$d,workdir=/tmp/ov/work/$d" "$R/$d" \
		2>>/tmp/ov/mount.log || bad="$bad $d"
done
if [ -n "$bad" ]; then
	fail "a fresh root over fuse-overlayfs" "not mounted:$bad: $(tail -n 3 /tmp/ov/mount.log)"
	finish
fi
pass "a fresh root: /usr, /etc, /var over fuse-overlayfs"
for l in bin lib lib64 sbin; do ln -s "usr/$l" "$R/$l"; done
mkdir -p "$R/dev" "$R/proc" "$R/sys" "$R/tmp/pkgs" "$R/tmp/kpkg" "$R/tmp/work" "$R/root" "$R/run" \
	"$R/boot" "$R$top"
mount --rbind /dev "$R/dev"
mount --rbind /proc "$R/proc"
mount --rbind /sys "$R/sys"
mount --bind "$top" "$R$top"
cp $files "$R/tmp/pkgs/"
cp "$kdeb" "$R/tmp/kpkg/"
cp "$SAMPLE" "$USTACK_PROGS/libustack-sample.so" "$R/tmp/work/"

cat >"$R/tmp/inside.sh" <<'EOS'
. "$USTACK_TOP/tests/lib/result.sh"
. "$USTACK_TOP/tests/lib/xwin.sh"
cd /tmp/work || exit 1
rm -f /var/lib/man-db/auto-update	# no index of every page of the host

unit=ustack-sframe-serve.service
wants=/etc/systemd/system/multi-user.target.wants/$unit
check "before the install, $unit is not enabled here" sh -c "! [ -L $wants ]"
dpkg -i /tmp/pkgs/*.deb >/tmp/dpkg-i.log 2>&1
check "dpkg -i of the five packages" sh -c \
	'dpkg -s ustack-tools | grep -qx "Status: install ok installed" || { tail -n 5 /tmp/dpkg-i.log; exit 1; }'
dpkg -L libtracefs-ext1 libtracefs-ext-dev trace-cmd-plugin-ustack kernelshark-plugin-ustack \
	ustack-tools | sort -u >/tmp/listed
# the tables service's unit, enabled by ustack-tools' postinst: no systemd
# runs here, so deb-systemd-helper made the link systemd reads at boot
check "$unit enabled at install ($wants -> $(readlink $wants))" \
	test "$(readlink $wants)" = /lib/systemd/system/$unit
check "systemctl is-enabled $unit: enabled" sh -c "[ \"\$(systemctl is-enabled $unit)\" = enabled ]"

# the README's commands (./prog: ustack-sample, 5 getppid calls)
trace-cmd record -O user_stacktrace_deferred -e raw_syscalls -F ./ustack-sample 5 \
	>/tmp/record.log 2>&1
check "trace-cmd record -O user_stacktrace_deferred -e raw_syscalls -F ./prog" \
	sh -c 'grep -q "ustack-sample: 5 calls" /tmp/record.log && [ -s trace.dat ] || { tail -n 3 /tmp/record.log; exit 1; }'
trace-cmd report >report.txt 2>/tmp/report.err
n=$(grep -c '^ => ustack_lib_syscall+0x[0-9a-f]* (/tmp/work/libustack-sample.so)$' report.txt)
check "trace-cmd report, no setting: the getppid events with their symbolized stacks ($n)" \
	test "$n" -ge 10
chain=$(grep -m1 -A6 '^ => ustack_lib_syscall+' report.txt | sed -n 's/^ => \([a-z_]*\)+0x.*/\1/p' |
	head -n 6 | tr '\n' ' ' | sed 's/ $//')
check "... the exact chain ($chain)" test "$chain" = "$CHAIN"
ustack-flame -f html -o prog.html trace.dat 2>/tmp/flame.err
check "ustack-flame -f html -o prog.html trace.dat" \
	sh -c 'grep -q "<html" prog.html && grep -q sample_outer prog.html'
check "ustack-stitch trace.dat" sh -c 'ustack-stitch trace.dat | grep -q "ustack_lib_syscall"'
check "ustack-sframe coverage ./ustack-sample" sh -c 'ustack-sframe coverage ./ustack-sample | grep -q .'
check "man ustack-flame" sh -c 'man -w ustack-flame | grep -q ^/usr/share/man/'

# KernelShark under Xvfb: the plugin from its directory draws the trace
mkdir -p /tmp/kscache
printf '[General]\nnoRootWarn=true\n' >/tmp/kscache/setting.ini
cat >/tmp/ks.sh <<'EOK'
. "$USTACK_TOP/tests/lib/result.sh"
. "$USTACK_TOP/tests/lib/xwin.sh"
stdbuf -oL kernelshark -p ustack trace.dat >/tmp/ks.out 2>&1 &
pid=$!
ok=0
wait_until 600 shown "Kernel Shark" && wait_until 600 grep -q '^draw cpu' /tmp/ks.log && ok=1
# the screenshot the README's tour shows, of the drawn window
[ $ok = 1 ] && xwd -root -silent | convert xwd:- png:/tmp/ks.png
kill $pid
wait $pid 2>/dev/null
[ $ok = 1 ]
EOK
USTACK_KSHARK_LOG=/tmp/ks.log KS_USER_CACHE_DIR=/tmp/kscache \
	xvfb-run -a bash /tmp/ks.sh >/tmp/ks.run 2>&1
check "kernelshark -p ustack trace.dat: the plugin from $(dpkg -L kernelshark-plugin-ustack | grep '\.so$') draws the trace" \
	sh -c 'grep -q "loading plugin \"ustack\" from /usr/lib/x86_64-linux-gnu/kernelshark/plugins/plugin-ustack.so" /tmp/ks.out &&
	       grep -q "^draw cpu" /tmp/ks.log || { tail -n 3 /tmp/ks.out /tmp/ks.run; exit 1; }'
check "a screenshot of it under Xvfb ($(stat -c %s /tmp/ks.png 2>/dev/null) bytes of PNG, $(identify -format '%wx%h, %k colors' /tmp/ks.png 2>/dev/null))" \
	sh -c 'test "$(identify -format %k /tmp/ks.png 2>/dev/null)" -gt 16'

dpkg --purge ustack-tools kernelshark-plugin-ustack trace-cmd-plugin-ustack libtracefs-ext-dev \
	libtracefs-ext1 >/tmp/dpkg-r.log 2>&1
check "dpkg --purge of the five packages" sh -c \
	'! dpkg-query -W -f="\${Status}\n" libtracefs-ext1 libtracefs-ext-dev trace-cmd-plugin-ustack \
		kernelshark-plugin-ustack ustack-tools 2>/dev/null | grep -q " installed$"'
left=
while IFS= read -r f; do
	# directories stay (shared with the system), symlinks to them too:
	# /lib is merged /usr's link, listed since the unit is in /lib/systemd
	[ -d "$f" ] && continue
	{ [ -e "$f" ] || [ -L "$f" ]; } && left="$left $f"
done </tmp/listed
check "no file the packages installed is left${left:+ (left:$left)}" test -z "$left"
dsh=/var/lib/systemd/deb-systemd-helper-enabled
check "$unit no longer enabled: no link in multi-user.target.wants, no deb-systemd-helper state" \
	sh -c "! [ -e $wants ] && ! [ -L $wants ] && ! find $dsh -name '$unit*' 2>/dev/null | grep -q ."
check "ldconfig no longer knows libtracefs-ext" sh -c '! ldconfig -p | grep -q libtracefs-ext'
trace-cmd report >report2.txt 2>&1
check "trace-cmd report after the purge: no stacks" test "$(grep -c '^ => ' report2.txt)" = 0

# the kernel's package: the kernel make check boots, installed and purged
kpkg=$(dpkg-deb -f /tmp/kpkg/*.deb Package)
release=${kpkg#linux-image-}
dpkg -i /tmp/kpkg/*.deb >/tmp/dpkg-k.log 2>&1
check "dpkg -i $kpkg" sh -c \
	"dpkg -s $kpkg | grep -qx 'Status: install ok installed' || { tail -n 5 /tmp/dpkg-k.log; exit 1; }"
check "/boot/vmlinuz-$release is the kernel built for it" \
	cmp -s /boot/vmlinuz-$release "$USTACK_TOP/build/deb/kernel/linux/arch/x86/boot/bzImage"
check "its config has deferred user stacks" grep -qx CONFIG_USER_STACKTRACE_DEFERRED=y /boot/config-$release
dpkg -L $kpkg | sort -u >/tmp/klisted
dpkg --purge $kpkg >/tmp/dpkg-kr.log 2>&1
left=
while IFS= read -r f; do
	[ -d "$f" ] && continue
	{ [ -e "$f" ] || [ -L "$f" ]; } && left="$left $f"
done </tmp/klisted
check "dpkg --purge $kpkg leaves none of its files${left:+ (left:$left)}" \
	sh -c "! dpkg -s $kpkg 2>/dev/null | grep -q 'Status: install ok installed' && test -z '$left'"
finish
EOS
chroot "$R" env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
	USTACK_TOP="$top" CHAIN="$CHAIN" TERM=dumb bash /tmp/inside.sh
rc=$?
[ $rc -le 1 ] || fail "the chroot" "exited $rc"
umount -R "$R/dev" "$R/proc" "$R/sys" "$R$top" 2>/dev/null
for d in usr etc var; do fusermount3 -u "$R/$d" 2>/dev/null || umount "$R/$d"; done
finish
