#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# PID 1 of the test guest. The root is the host's / over 9p, read-only.
# scripts/guest-run.sh passes USTACK_RES (a host directory, mounted read-write
# at the same path) on the kernel command line; it holds job.sh. The job's
# output goes to $USTACK_RES/output and its exit status to $USTACK_RES/rc; the
# console carries only kernel messages and the few lines below.
PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export PATH

mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
mkdir -p /dev/pts /dev/shm 2>/dev/null
mount -t devpts devpts /dev/pts 2>/dev/null
ln -sf /proc/self/fd /dev/fd 2>/dev/null
mount -t tmpfs tmpfs /dev/shm
mount -t tmpfs tmpfs /run
# A repository in the host's /tmp (a clone there) would vanish under the
# guest's tmpfs /tmp: keep its top directory visible at the same path.
top=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p /run/host-tmp
mount --bind /tmp /run/host-tmp
mount -t tmpfs tmpfs /tmp
case "$top" in
/tmp/*)	d=${top#/tmp/}
	d=${d%%/*}
	mkdir -p "/tmp/$d"
	mount --bind "/run/host-tmp/$d" "/tmp/$d" ||
		echo "ustack-init: cannot show /tmp/$d in the guest"
	;;
esac
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
mount -t 9p -o trans=virtio,version=9p2000.L,msize=512000 results "$USTACK_RES" ||
	echo "ustack-init: cannot mount the results share"
hostname ustack-guest 2>/dev/null
ip link set lo up 2>/dev/null

echo "ustack-init: running job"
HOME=/tmp TMPDIR=/tmp USTACK_GUEST=1
export HOME TMPDIR USTACK_GUEST USTACK_RES USTACK_KOBJ
(cd "$USTACK_CWD" && exec /bin/sh "$USTACK_RES/job.sh") >"$USTACK_RES/output" 2>&1 </dev/null
echo $? >"$USTACK_RES/rc"
echo "ustack-init: job exited $(cat "$USTACK_RES/rc")"

# kmemleak (debug kernel): one scan, and its findings on the console.
if [ -w /sys/kernel/debug/kmemleak ]; then
	echo scan >/sys/kernel/debug/kmemleak
	if [ -s /sys/kernel/debug/kmemleak ]; then
		echo "ustack-init: kmemleak reports leaks:"
		cat /sys/kernel/debug/kmemleak
	fi
fi
sync
busybox poweroff -f
