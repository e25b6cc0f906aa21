# SPDX-License-Identifier: GPL-2.0
# The trace of stacks found each way, for the tests of how a stack was
# found (issue 37): plugin-unwind, flame-unwind, kshark-unwind. Sourced
# after result.sh.

# unwind_fixture DIR: DIR/unwind.dat, the committed trace of
# tests/fixtures/plugin/ (ustack-sample's 2 getppid calls, 2 stack entries)
# twice over, its 4 stack entries with flags 0x4 (frame pointers found the
# frames), 0x8 (SFrame did), 0xc (both) and 0x4 again, in that order
# (tests/fixtures/make-buffers-fixture.py --stack-flags). Each stack is of
# the getppid enter and exit before it. Return: 0, or 1 with a message.
unwind_fixture() {
	local dir=$1

	if ! trace-cmd convert -i "$USTACK_TOP/tests/fixtures/plugin/sample.dat" \
	     -o "$dir/unwind-src.dat" --file-version 6 --compression none >/dev/null 2>&1; then
		echo "trace-cmd convert failed"
		return 1
	fi
	python3 "$USTACK_TOP/tests/fixtures/make-buffers-fixture.py" "$dir/unwind-src.dat" \
		"$dir/unwind.dat" --repeat 2 --stack-flags 0x4,0x8,0xc
}
