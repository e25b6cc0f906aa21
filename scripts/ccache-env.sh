# SPDX-License-Identifier: GPL-2.0
# Sourced by the build scripts with $top set: one ccache for the kernel and
# perf, kept outside the repository, so a fresh clone starts warm. Paths
# below the repository are hashed relative to it: clones elsewhere hit.
export CCACHE_DIR=${CCACHE_DIR:-$HOME/.cache/ustack-ccache}
export CCACHE_BASEDIR=$top
export CCACHE_NOHASHDIR=1
export CCACHE_SLOPPINESS=time_macros,include_file_mtime,include_file_ctime
export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-8G}
