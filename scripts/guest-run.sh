#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Boot the ustack kernel in QEMU, run one shell command as the guest's job,
# print its output, power the guest off and exit with the job's status.
#
#   guest-run.sh [--debug] [--timeout SEC] [--keep] [--res DIR] [--serve] [--] COMMAND...
#
# The guest sees the host's / read-only over virtio-9p (so host binaries and
# this repository run in it at the same paths), /tmp is a tmpfs, and the
# results directory ($USTACK_RES in the guest) is shared read-write.
#
# --serve: the guest's init starts the tables service (build/sframe/
# ustack-sframe serve, as ustack-sframe-serve.service does at boot) before
# the command and waits until its first scan is done; its cache is
# /run/ustack-sframe-cache (0700, empty at each boot), its status file
# /run/ustack-sframe-serve.status, its log /run/ustack-sframe-serve.log
# (copied to $USTACK_RES/serve.log at the end). Without it no table is
# loaded unless the command loads it (docs/tables-service.md, "In the
# tests").
#
# USTACK_KERNEL: the kernel image to boot (as --kernel; default build/kernel's).
#
# Exit status: the job's; 124 when the guest hung and was killed; 125 when the
# console shows a kernel oops, panic, BUG, WARNING, KASAN, lockdep, RCU or
# kmemleak report (even when the job passed); 126 when the guest did not start.
set -u

top=$(cd "$(dirname "$0")/.." && pwd)
kernel=${USTACK_KERNEL:-$top/build/kernel/arch/x86/boot/bzImage}	# or --kernel
timeout=${USTACK_GUEST_TIMEOUT:-300}
keep=0
res=
extra_append=
serve=
while [ $# -gt 0 ]; do
	case "$1" in
	--debug) kernel=$top/build/kernel-debug/arch/x86/boot/bzImage
		# ACPI's _PRT loop runs into its 30 s limit under KASAN + TCG
		# on a busy host, and virtio then gets no interrupt: route PCI
		# interrupts from the BIOS table instead. And 4-level page
		# tables: identify_cpu() clears the boot CPU's capabilities,
		# LA57 (which -cpu max has) among them, and reads them again;
		# an interrupt in between made KASAN report a wild access to
		# an address of the 5-level direct map (twice in two sessions, at
		# 0.006 and 0.9 s, before any code of the series runs).
		extra_append="pci=noacpi no5lvl" ;;
	--kernel) kernel=$2; shift ;;
	--timeout) timeout=$2; shift ;;
	--keep) keep=1 ;;
	--res) res=$2; keep=1; shift ;;	# kept; not under /tmp (a tmpfs in the guest)
	--serve) serve=1 ;;
	--) shift; break ;;
	*) break ;;
	esac
	shift
done
[ $# -gt 0 ] || { echo "usage: guest-run.sh [--debug] [--timeout SEC] [--serve] -- COMMAND..." >&2; exit 2; }
[ -r "$kernel" ] || { echo "guest-run: no kernel at $kernel: run 'make kernel'" >&2; exit 126; }

mkdir -p "$top/build/guest"
res=${res:-$(mktemp -d "$top/build/guest/run.XXXXXX")}
mkdir -p "$res"
rm -f "$res/rc" "$res/output" "$res/console"
cleanup() { [ $keep = 1 ] || rm -rf "$res"; }
trap cleanup EXIT
printf '%s\n' "$*" > "$res/job.sh"

# USTACK_ICOUNT (e.g. "shift=0,sleep=off"): QEMU's instruction counting,
# the guest clock then advances by executed instructions (benchmarks that
# repeat, tests that check a duration of the guest's clock; TCG only). The
# job sees it as $USTACK_ICOUNT.
# USTACK_QEMU_ARGS: more QEMU options (make bench's insn-profile plugin).
# USTACK_SMP: the guest's CPUs (2; make bench's wall-clock rows take 1).
# KVM only where it really works (/dev/kvm and hardware virtualization);
# these machines have a /dev/kvm that cannot run a normal guest.
# USTACK_TCG_THREAD: "single" (one host thread for all vCPUs). Not "multi":
# under it a vCPU ran code a text_poke_bp() had patched away (an int3 Oops
# in __schedule while tracepoints were switched, make bench, 2026-11-28).
accel="-accel tcg,thread=${USTACK_TCG_THREAD:-single} -cpu max${USTACK_ICOUNT:+ -icount $USTACK_ICOUNT}"
if [ "${USTACK_KVM:-auto}" != no ] && [ -w /dev/kvm ] && grep -qwE 'vmx|svm' /proc/cpuinfo; then
	accel="-accel kvm -cpu host"
	USTACK_ICOUNT=	# not under KVM: the job must not believe it
fi

# no_timer_check: the boot's IO-APIC timer test counts ticks over a TSC
# delay; a vCPU the host starves (TCG on busy cores) sees too few and the
# kernel panics ("IO-APIC + timer doesn't work"), though QEMU's timer works.
append="console=ttyS0 earlyprintk=serial,ttyS0 panic=-1 no_timer_check root=hostroot rootfstype=9p"
append="$append rootflags=trans=virtio,version=9p2000.L,msize=512000,cache=loose ro"
kobj=$(cd "$(dirname "$kernel")/../../.." && pwd)
append="$append init=$top/scripts/guest-init.sh USTACK_RES=$res USTACK_CWD=$PWD USTACK_KOBJ=$kobj"
append="$append $extra_append ${USTACK_ICOUNT:+USTACK_ICOUNT=$USTACK_ICOUNT} ${serve:+USTACK_SERVE=1}"
append="$append ${USTACK_APPEND:-}"

# shellcheck disable=SC2086
timeout -s KILL "$timeout" qemu-system-x86_64 $accel -smp "${USTACK_SMP:-2}" -m 2G ${USTACK_QEMU_ARGS:-} \
	-nographic -no-reboot -nodefaults -serial stdio -monitor none \
	-kernel "$kernel" -append "$append" \
	-virtfs local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap \
	-virtfs local,path="$res",mount_tag=results,security_model=none,multidevs=remap \
	> "$res/console" 2>&1 </dev/null
qrc=$?

[ -f "$res/output" ] && cat "$res/output"

# Kernel reports that fail a run whatever the job said.
bad='(Oops|Kernel panic|BUG:|WARNING:|general protection fault|UBSAN:|'
bad+='possible recursive locking|possible circular locking|inconsistent lock state|'
bad+='suspicious RCU usage|DEBUG_LOCKS_WARN_ON|unreferenced object|kmemleak reports|'
bad+='INFO: task .* blocked|self-detected stall|soft lockup|hard LOCKUP)'
status=0
if [ $qrc = 137 ]; then
	echo "guest-run: FAIL: guest hung, killed after ${timeout}s; last console lines:"
	status=124
elif [ ! -f "$res/rc" ]; then
	echo "guest-run: FAIL: the job never finished (qemu exit $qrc); last console lines:"
	status=126
else
	status=$(cat "$res/rc")
fi
if grep -qE "$bad" "$res/console"; then
	echo "guest-run: FAIL: kernel report on the console:"
	grep -m1 -A30 -E "$bad" "$res/console"
	status=125
elif [ $status = 124 ] || [ $status = 126 ]; then
	tail -n 25 "$res/console"
fi
if [ "${USTACK_CONSOLE:-0}" = 1 ]; then
	echo "---- console ----"
	cat "$res/console"
fi
exit "$status"
