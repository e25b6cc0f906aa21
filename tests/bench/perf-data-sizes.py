#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""perf-data-sizes.py PERF_DATA: prints "SAMPLES BYTES", the number of
PERF_RECORD_SAMPLE records in the file and the bytes of its SAMPLE and
PERF_RECORD_CALLCHAIN_DEFERRED records together.

It reads the file's header and walks the records of its data section by
their sizes. "perf report -D" gives the same numbers but prints every
record in hex, which for --call-graph dwarf (8 KiB of stack per sample)
took 150-200 s per file in the TCG guest; this takes well under one.
Exits 1, with a message, on a file that is not a perf.data file or whose
data section runs past its end or holds a record of size 0."""

import struct
import sys

PERF_RECORD_SAMPLE = 9
PERF_RECORD_CALLCHAIN_DEFERRED = 22
HEADER = struct.Struct('<8sQQ QQ QQ')	# magic, size, attr_size, attrs, data
RECORD = struct.Struct('<IHH')		# type, misc, size


def fail(msg):
    print(f'perf-data-sizes: {msg}', file=sys.stderr)
    sys.exit(1)


def sizes(path):
    with open(path, 'rb') as f:
        buf = f.read()
    if len(buf) < HEADER.size:
        fail(f'{path}: too short for a perf.data header')
    magic, _, _, _, _, off, size = HEADER.unpack_from(buf)
    if magic != b'PERFILE2':
        fail(f'{path}: not a perf.data file (magic {magic!r})')
    if off + size > len(buf):
        fail(f'{path}: data section {off}+{size} past the end ({len(buf)})')
    samples = nbytes = 0
    end = off + size
    while off + RECORD.size <= end:
        rtype, _, rsize = RECORD.unpack_from(buf, off)
        if rsize < RECORD.size or off + rsize > end:
            fail(f'{path}: record of size {rsize} at {off}')
        if rtype == PERF_RECORD_SAMPLE:
            samples += 1
            nbytes += rsize
        elif rtype == PERF_RECORD_CALLCHAIN_DEFERRED:
            nbytes += rsize
        off += rsize
    return samples, nbytes


def main():
    if len(sys.argv) != 2:
        print('usage: perf-data-sizes.py PERF_DATA', file=sys.stderr)
        sys.exit(2)
    samples, nbytes = sizes(sys.argv[1])
    print(samples, nbytes)


if __name__ == '__main__':
    main()
