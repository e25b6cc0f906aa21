#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Load mutated copies of an unwind table, and walk with those accepted.

    table-mutate.py TABLES_DIR BLOB COUNT SEED PROG [ARG...]

Each round changes 1 to 8 random bytes of BLOB (mostly in its SFrame
section, sometimes in the header), or cuts it short, writes it to
TABLES_DIR/load in one write(), naming PROG (the file the table is made
from) by a descriptor in the header's fd field, as ustack-sframe load
does (the header's flags and fd are never mutated: the kernel gives the
table to that inode only), and when the kernel accepts it runs PROG,
then removes it. The kernel must accept or refuse with EINVAL, nothing
else, and must survive the walks (the guest's console is checked for
reports by the caller).

Prints "rounds N accepted A refused R other O" and exits 0, or 1 when a
write failed with another error.
"""
import errno
import os
import random
import subprocess
import sys


def write_once(path, data):
    fd = os.open(path, os.O_WRONLY)
    try:
        os.write(fd, data)
        return 0
    except OSError as e:
        return e.errno
    finally:
        os.close(fd)


def mutate(rng, blob):
    b = bytearray(blob)
    if rng.random() < 0.05:
        return bytes(b[:rng.randrange(1, len(b))])
    for _ in range(rng.randint(1, 8)):
        if rng.random() < 0.1:
            i = rng.randrange(0, 56)
        else:
            i = rng.randrange(56, len(b))
        b[i] = rng.randrange(256)
    return bytes(b)


def name_file(blob, fd):
    """BLOB with the header's flags 1 and fd FD (when it has a header)."""
    b = bytearray(blob)
    if len(b) >= 56:
        b[12:16] = (1).to_bytes(4, "little")
        b[52:56] = fd.to_bytes(4, "little")
    return bytes(b)


def main(argv):
    if len(argv) < 6:
        sys.stderr.write(__doc__)
        return 2
    tables, blob_path, count, seed = argv[1], argv[2], int(argv[3]), int(argv[4])
    with open(blob_path, "rb") as f:
        blob = f.read()
    rng = random.Random(seed)
    acc = ref = other = 0
    prog_fd = os.open(argv[5], os.O_RDONLY)
    for _ in range(count):
        m = name_file(mutate(rng, blob), prog_fd)
        e = write_once(tables + "/load", m)
        if e == 0:
            acc += 1
            subprocess.run(argv[5:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            # by the build-id it was loaded with (maybe a mutated one)
            build_id = m[20:20 + int.from_bytes(m[16:20], "little")].hex()
            e = write_once(tables + "/remove", (build_id + "\n").encode())
            if e:
                other += 1
                print("remove %s: errno %d" % (build_id, e))
        elif e == errno.EINVAL:
            ref += 1
        else:
            other += 1
            print("errno %d: %s" % (e, os.strerror(e)))
    print("rounds %d accepted %d refused %d other %d" % (count, acc, ref, other))
    return 1 if other else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
