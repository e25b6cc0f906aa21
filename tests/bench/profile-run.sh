#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Where eq8's instructions go, per kernel function (make bench's parts
# "profile" and "floor"): boots KOBJ's kernel under QEMU with the
# insn-profile plugin (tests/bench/insn-profile.c, TCG only), runs
# tests/bench/profile.sh there and prints profile-report.py's report.
#
#   profile-run.sh KOBJ CALLS CSV [ICOUNT_CSV]
#
# KOBJ is a kernel build dir (build/kernel); CSV gets the functions' rows;
# with ICOUNT_CSV the totals are checked against its -icount eq8 rows.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
kobj=${1:?KOBJ}
calls=${2:?CALLS}
csv=${3:?CSV}
map=$kobj/System.map
snaps=$(mktemp -d "$top/build/profile-snap.XXXXXX") || exit 1
trap 'rm -rf "$snaps"' EXIT

trig=$(awk '$3 == "__x64_sys_getpgid" { print $1 }' "$map" 2>/dev/null)
[ -n "$trig" ] || { echo "profile: no __x64_sys_getpgid in $map"; exit 1; }
USTACK_KVM=no USTACK_QEMU_ARGS="-plugin $top/build/tools/insn-profile.so,arg=$trig,arg=$snaps/s" \
	"$top/scripts/guest-run.sh" --kernel "$kobj/arch/x86/boot/bzImage" --timeout 1200 -- \
	BENCH_PROFILE_CALLS="$calls" bash "$top/tests/bench/profile.sh" || exit 1
"$top/tests/bench/profile-report.py" "$map" "$snaps/s" "$calls" "$csv" ${4:+"$4"}
