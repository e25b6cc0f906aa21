#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Print a short id of what build/linux holds on top of base: "base" for an
# empty series, else the first 12 hex digits of a hash of its patch ids.
# The guest test compares it with uname -v to know it booted our kernel.
set -eu
tree=$(cd "$(dirname "$0")/.." && pwd)/build/linux
ids=$(git -C "$tree" log -p --reverse base..HEAD | git patch-id --stable | cut -d' ' -f1)
if [ -z "$ids" ]; then
	echo base
else
	echo "$ids" | sha1sum | cut -c1-12
fi
