# SPDX-License-Identifier: GPL-2.0
# Host-side helpers for the trace-cmd plugin tests. Sourced after result.sh.

PLUGIN_DIR=${USTACK_PLUGIN_DIR:-$USTACK_TOP/build/trace-cmd-plugin}

# plugin_require NAME TOOL...: end the test file unless every TOOL is on
# PATH (SKIP NAME) and the plugin is built (FAIL).
plugin_require() {
	local name=$1 t

	shift
	for t in "$@"; do
		if ! command -v "$t" >/dev/null; then
			skip "$name" "no $t"
			finish
		fi
	done
	if [ ! -r "$PLUGIN_DIR/plugin_ustack.so" ]; then
		fail "plugin built" "no $PLUGIN_DIR/plugin_ustack.so (make trace-cmd-plugin)"
		finish
	fi
}
