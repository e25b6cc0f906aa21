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

HOME=/tmp TMPDIR=/tmp USTACK_GUEST=1
export HOME TMPDIR USTACK_GUEST USTACK_RES USTACK_KOBJ
: >"$USTACK_RES/output"

# guest-run.sh --serve: the tables service, as its unit starts it at boot,
# before the job; the job starts once its first scan is done (its status
# file is written then), 300 s at most
serve_pid=
if [ "${USTACK_SERVE:-0}" = 1 ]; then
	mkdir -m 0700 /run/ustack-sframe-cache
	"$top/build/sframe/ustack-sframe" serve --cache /run/ustack-sframe-cache \
		--status /run/ustack-sframe-serve.status \
		>/run/ustack-sframe-serve.log 2>&1 </dev/null &
	serve_pid=$!
	n=0
	while [ ! -e /run/ustack-sframe-serve.status ] && [ $n -lt 3000 ] &&
	      kill -0 $serve_pid 2>/dev/null; do
		sleep 0.1
		n=$((n + 1))
	done
	if [ -e /run/ustack-sframe-serve.status ]; then
		echo "ustack-init: tables service serving (pid $serve_pid, after $((n / 10)) s)"
	else
		echo "ustack-init: the tables service did not start:" |
			tee -a "$USTACK_RES/output"
		tail -n 5 /run/ustack-sframe-serve.log | tee -a "$USTACK_RES/output"
	fi
	USTACK_SERVE_PID=$serve_pid
	export USTACK_SERVE_PID
fi

echo "ustack-init: running job"
(cd "$USTACK_CWD" && exec /bin/sh "$USTACK_RES/job.sh") >>"$USTACK_RES/output" 2>&1 </dev/null
echo $? >"$USTACK_RES/rc"
echo "ustack-init: job exited $(cat "$USTACK_RES/rc")"
if [ -n "$serve_pid" ]; then
	kill -TERM $serve_pid 2>/dev/null
	wait $serve_pid
	cp /run/ustack-sframe-serve.log "$USTACK_RES/serve.log" 2>/dev/null
fi

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
