# SPDX-License-Identifier: GPL-2.0
# make demo's program: Debian's python3 running recursive functions that
# write, so that its user stacks go through the interpreter's C frames.
import os


def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)


def report(depth):
    if depth:
        return report(depth - 1)
    os.write(1, b"fib(12) = %d\n" % fib(12))
    return 0


report(2)
report(4)
