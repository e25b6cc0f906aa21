# SPDX-License-Identifier: GPL-2.0
# Sourced by the build scripts with $top set: one ccache for the kernel and
# perf, kept outside the repository, so a fresh clone starts warm. Paths
# below the repository are hashed relative to it: clones elsewhere hit.
export CCACHE_DIR=${CCACHE_DIR:-$HOME/.cache/ustack-ccache}
export CCACHE_BASEDIR=$top
export CCACHE_NOHASHDIR=1
# No include_file_mtime/ctime sloppiness: with it, a header changed while a
# build runs (a rebase of build/linux) stores objects made from the old
# header under the new header's hash, and every later build reuses them.
export CCACHE_SLOPPINESS=time_macros
export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-8G}
