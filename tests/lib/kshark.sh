# SPDX-License-Identifier: GPL-2.0
# Host-side helpers for the KernelShark plugin tests. Sourced after result.sh.
#
# kshark_setup NAME: end the test file unless the plugin and its test
# programs are built (FAIL) and libkshark is installed (SKIP); then make, in
# $work (removed at exit): $work/multi.dat (the committed fixture's records
# in the top buffer, and again without stack entries in an instance "lost",
# tests/fixtures/make-buffers-fixture.py) and $work/debug (the fixture's
# debug files by build-id), exported as USTACK_DEBUG_DIR. KS_KSTACKS=1: with
# a kernel stack entry after each event in multi.dat (trace-cmd record -T).

KS_DIR=${USTACK_KSHARK_DIR:-$USTACK_TOP/build/kernelshark-plugin}
KS_PLUGIN=$KS_DIR/plugin-ustack.so
KS_FX=$USTACK_TOP/tests/fixtures/plugin
KS_SAMPLE=$KS_FX/sample.dat

kshark_setup() {
	local name=$1 f b

	if [ ! -e /usr/lib/x86_64-linux-gnu/libkshark.so.2 ]; then
		skip "$name" "libkshark2 is not installed (scripts/deps.sh installs it)"
		finish
	fi
	if [ ! -r "$KS_PLUGIN" ] || [ ! -x "$KS_DIR/kshark-data-test" ]; then
		fail "$name" "the plugin is not built (make kernelshark-plugin): no $KS_PLUGIN"
		finish
	fi
	if [ -e /tmp/ustack-fixture ]; then
		skip "$name" "/tmp/ustack-fixture exists here: the test needs it absent"
		finish
	fi
	work=$(mktemp -d)
	trap 'rm -rf "$work"' EXIT
	for f in "$KS_FX"/*.debug; do
		b=$(basename "$f" .debug)
		mkdir -p "$work/debug/.build-id/${b:0:2}"
		cp "$f" "$work/debug/.build-id/${b:0:2}/${b:2}.debug"
	done
	export USTACK_DEBUG_DIR=$work/debug
	trace-cmd convert -i "$KS_SAMPLE" -o "$work/v6.dat" --file-version 6 --compression none \
		>/dev/null 2>&1 &&
	python3 "$USTACK_TOP/tests/fixtures/make-buffers-fixture.py" "$work/v6.dat" \
		"$work/multi.dat" --top stacks --instance lost=lost ${KS_KSTACKS:+--kernel-stacks} || {
		fail "$name" "could not make the fixture with an instance"
		finish
	}
}
