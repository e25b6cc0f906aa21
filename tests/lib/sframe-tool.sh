# SPDX-License-Identifier: GPL-2.0
# Host-side helpers of the ustack-sframe tests (tests/host/sframe-tool-*.sh).
# Sourced after result.sh: O is the sframe build (USTACK_SFRAME_O, for an
# ASan build), tool the program.

O=${USTACK_SFRAME_O:-$USTACK_TOP/build/sframe}
tool=$O/ustack-sframe

# sf_built FILE...: FAIL and finish unless every FILE of the build is there
sf_built() {
	local f

	for f in "$@"; do
		if [ ! -f "$f" ]; then
			fail "sframe built" "no ${f#"$USTACK_TOP"/} (make sframe; make -C sframe utest)"
			finish
		fi
	done
}
