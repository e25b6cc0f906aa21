#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build tools/perf of build/linux (our series applied) out of tree:
#   perf-build.sh   -> build/perf/perf
# Features on: libelf, libdw (DWARF, DWARF unwinding), libtraceevent, zlib,
# lzma, libcrypto, aio. Off: what needs packages outside Debian 12's base
# set here or a language runtime (python, perl, libbpf/BPF skeletons, TUI/GTK,
# libunwind, numa, libcap, babeltrace, zstd, libpfm4, SDT, capstone) and the
# JSON PMU event tables (no hardware PMU under TCG). See docs/perf.md.
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
tree=$top/build/linux
obj=$top/build/perf
jobs=${JOBS:-$(nproc)}

[ -d "$tree/.git" ] || { echo "perf-build: build/linux missing: run scripts/kernel-tree.sh" >&2; exit 1; }

. "$top/scripts/ccache-env.sh"

mkdir -p "$obj"
log=$obj/build.log
if ! make -C "$tree/tools/perf" O="$obj" CC="ccache gcc" -j"$jobs" \
	NO_LIBPYTHON=1 NO_LIBPERL=1 NO_JEVENTS=1 NO_LIBBPF=1 BUILD_BPF_SKEL=0 \
	NO_SLANG=1 NO_GTK2=1 NO_LIBUNWIND=1 NO_LIBNUMA=1 NO_LIBCAP=1 \
	NO_LIBBABELTRACE=1 NO_LIBZSTD=1 NO_LIBPFM4=1 NO_SDT=1 NO_CAPSTONE=1 \
	>"$log" 2>&1; then
	tail -n 30 "$log" >&2
	echo "perf-build: failed (log: $log)" >&2
	exit 1
fi
"$obj/perf" version >/dev/null
echo "perf-build: $obj/perf ($("$obj/perf" version))"
