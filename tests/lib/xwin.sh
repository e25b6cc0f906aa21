# SPDX-License-Identifier: GPL-2.0
# Windows under Xvfb, for the KernelShark sessions (tests/host/kshark-gui.sh,
# scripts/kshark-screenshot.sh).

# shown NAME-REGEX: a visible window of that name is there, its id in $shown.
# Each look is a search of its own: a window that goes away while xdotool
# reads it is an X error that ends that search (xdotool exits), not the wait
# (wait_until 120 shown NAME).
shown() {
	shown=$(xdotool search --onlyvisible --name "$1" 2>/dev/null | head -n 1)
	[ -n "$shown" ]
}
