#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make bench: the benchmarks, each in one guest boot so rows compare.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
"$top/scripts/guest-run.sh" --timeout 1200 -- bash "$top/tests/bench/ftrace-deferred.sh"
